// A Kubernetes pod placed by Slurm's scheduler runs on a real kubelet node: the newest Slurm
// version's cluster of pods (SlurmTags) with spec.podScheduler, the five services beside the
// test. The pod names the scheduler "tidepool"; pod-scheduler submits its placeholder job
// through the syncer, binds the pod to the Node of the slurmd pod whose Slurm node got the
// job, kubelet runs it; deleting the pod ends the job. Then Slurm's partition priorities
// preempt both ways: a batch job evicts a pod, a pod requeues a batch job.
#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "nodes/kubectl_helpers.h"
#include "nodes/research_cluster.h"
#include "nodes/tidepool_services.h"
#include "support/eventually.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

std::string PodManifest(const std::string& ns, const std::string& tag,
                        const std::string& name = "hello",
                        const std::string& annotations = R"(tidepool.dev/comment: "nodes test")") {
  return absl::StrReplaceAll(
      R"(apiVersion: v1
kind: Pod
metadata:
  name: NAME
  namespace: NS
  annotations: {tidepool.dev/time-limit: "10", ANNOTATIONS}
spec:
  schedulerName: tidepool
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: hello
    image: localhost/tidepool/login:TAG
    imagePullPolicy: Never
    command: [sh, -c, "echo placed by Slurm; exec sleep 3600"]
    resources: {requests: {cpu: "1", memory: 64Mi}}
)",
      {{"NS", ns}, {"TAG", tag}, {"NAME", name}, {"ANNOTATIONS", annotations}});
}

std::string JobInSlurm(const KubernetesEnv& env, const std::string& ns, const std::string& job) {
  return TryKubectl(
             env, {"-n", ns, "exec", "research-controller-0", "--", "scontrol", "show", "job", job})
      .value_or("");
}

// The value of " KEY=value" in scontrol's output ("cpu-01" of "... NodeList=cpu-01 ...").
std::string FieldOf(const std::string& job_info, const std::string& key) {
  const std::string marker = absl::StrCat(" ", key, "=");
  const size_t at = job_info.find(marker);
  if (at == std::string::npos) return "";
  const size_t start = at + marker.size();
  return job_info.substr(start, job_info.find_first_of(" \n", start) - start);
}

std::string NodeListOf(const std::string& job_info) { return FieldOf(job_info, "NodeList"); }

// sbatch in the controller pod: the job id.
std::string Sbatch(const KubernetesEnv& env, const std::string& ns,
                   const std::vector<std::string>& options) {
  std::vector<std::string> args = {
      "-n", ns, "exec", "research-controller-0", "--", "sbatch", "--parsable", "-t", "5"};
  args.insert(args.end(), options.begin(), options.end());
  args.insert(args.end(), {"--wrap", "sleep 300"});
  return std::string(absl::StripAsciiWhitespace(MustKubectl(env, args)));
}

// Waits until the pod runs; its job and Slurm node then.
struct PlacedPod {
  std::string job;
  std::string slurm_node;
};
std::optional<PlacedPod> AwaitRunning(const KubernetesEnv& env, const std::string& ns,
                                      const std::string& pod) {
  const bool running =
      PollUntil(
          [&] {
            return absl::StartsWith(
                TryKubectl(env, {"-n", ns, "get", "pod", pod, "-o", "jsonpath={.status.phase}"})
                    .value_or(""),
                "Running");
          },
          absl::Seconds(90), absl::Seconds(1))
          .has_value();
  if (!running) return std::nullopt;
  PlacedPod placed;
  placed.job = MustKubectl(env, {"-n", ns, "get", "pod", pod, "-o",
                                 R"(jsonpath={.metadata.annotations.tidepool\.dev/slurm-job-id})"});
  placed.slurm_node = NodeListOf(JobInSlurm(env, ns, placed.job));
  return placed;
}

// The pod is gone or being deleted; false when kubectl could not tell.
bool PodGone(const KubernetesEnv& env, const std::string& ns, const std::string& pod) {
  const std::optional<std::string> shown =
      TryKubectl(env, {"-n", ns, "get", "pod", pod, "--ignore-not-found", "-o",
                       "jsonpath={.metadata.name}/{.metadata.deletionTimestamp}"});
  if (!shown.has_value()) return false;
  const std::string text(absl::StripAsciiWhitespace(*shown));
  return text.empty() || !absl::EndsWith(text, "/");  // not found, or a deletion time
}

// Slurm priorities decide between pods and batch jobs: partition "urgent" preempts
// "batch", whose jobs are requeued (ResearchClusterParts::preemption).
void CheckPreemptionBothWays(const KubernetesEnv& env, const std::string& ns,
                             const std::string& tag, TidepoolServices& services) {
  // A batch job of the higher partition takes the node of a pod's job: the pod goes.
  Apply(env, PodManifest(ns, tag, "victim", R"(tidepool.dev/exclusive: "none")"));
  std::optional<PlacedPod> victim = AwaitRunning(env, ns, "victim");
  INFO(services.Logs());
  REQUIRE(victim.has_value());
  REQUIRE(!victim->slurm_node.empty());
  const std::string urgent_job =
      Sbatch(env, ns, {"-p", "urgent", "--exclusive", "-w", victim->slurm_node});
  const bool evicted =
      PollUntil([&] { return PodGone(env, ns, "victim"); }, absl::Seconds(60), absl::Seconds(1))
          .has_value();
  INFO("victim's job: " << JobInSlurm(env, ns, victim->job));
  CHECK(evicted);
  const std::string ended = MustKubectl(
      env, {"-n", ns, "get", "events", "--field-selector",
            "reason=JobEnded,involvedObject.name=victim", "-o", "jsonpath={.items[*].message}"});
  INFO("JobEnded: " << ended);
  CHECK(absl::StrContains(ended, "Slurm job " + victim->job));
  CHECK(PollUntil([&] { return FieldOf(JobInSlurm(env, ns, urgent_job), "JobState") == "RUNNING"; },
                  absl::Seconds(30), absl::Seconds(1))
            .has_value());
  MustKubectl(env, {"-n", ns, "exec", "research-controller-0", "--", "scancel", urgent_job});

  // A pod of the higher partition takes a node from a batch job holding both: the batch
  // job is requeued, the pod runs.
  const std::string batch_job = Sbatch(env, ns, {"-p", "batch", "--exclusive", "-N", "2"});
  REQUIRE(
      PollUntil([&] { return FieldOf(JobInSlurm(env, ns, batch_job), "JobState") == "RUNNING"; },
                absl::Seconds(60), absl::Seconds(1))
          .has_value());
  Apply(env, PodManifest(ns, tag, "urgent", R"(tidepool.dev/partition: urgent)"));
  std::optional<PlacedPod> urgent = AwaitRunning(env, ns, "urgent");
  const std::string batch_info = JobInSlurm(env, ns, batch_job);
  INFO("batch job: " << batch_info << "\n" << services.Logs());
  REQUIRE(urgent.has_value());
  CHECK(FieldOf(batch_info, "Restarts") == "1");
  CHECK(FieldOf(batch_info, "JobState") != "RUNNING");
  MustKubectl(env, {"-n", ns, "delete", "pod", "urgent", "--wait=true"});
  MustKubectl(env, {"-n", ns, "exec", "research-controller-0", "--", "scancel", batch_job});
}

TEST_CASE("a pod for the tidepool scheduler runs where Slurm placed its job") {
  const KubernetesEnv env = RequireKubernetes();
  MustKubectl(env, {"apply", "-f", SourceRoot() + "/manifests/crds"});
  ForEachSlurmVersion(
      env, SlurmVersions::kNewest, "ps", [&](const std::string& tag, const std::string& ns) {
        TidepoolServices services(env, ns);
        Apply(env, ResearchClusterManifest(
                       {.ns = ns, .slurm_tag = tag, .pod_scheduler = true, .preemption = true}));
        std::string sinfo;
        const bool idle = PollUntil(
                              [&] {
                                sinfo = TryKubectl(env, {"-n", ns, "exec", "research-controller-0",
                                                         "--", "sinfo", "-h", "-o", "%P %t %D"})
                                            .value_or("");
                                return absl::StrContains(sinfo, "batch* idle 2");
                              },
                              absl::Seconds(240), absl::Seconds(2))
                              .has_value();
        INFO("sinfo: " << sinfo << "\n" << services.Logs());
        REQUIRE(idle);

        const absl::Time created = absl::Now();
        Apply(env, PodManifest(ns, tag));
        std::string phase;
        const bool running =
            PollUntil(
                [&] {
                  phase = TryKubectl(env, {"-n", ns, "get", "pod", "hello", "-o",
                                           "jsonpath={.status.phase} {.spec.nodeName}"})
                              .value_or("");
                  return absl::StartsWith(phase, "Running ");
                },
                absl::Seconds(90), absl::Seconds(1))
                .has_value();
        INFO(
            "pod: " << phase << "\n"
                    << TryKubectl(env, {"-n", ns, "get", "pod", "hello", "-o", "yaml"}).value_or("")
                    << "\n"
                    << services.Logs());
        REQUIRE(running);
        WARN("pod created -> Running on a real node through Slurm: "
             << absl::FormatDuration(absl::Now() - created));

        // The pod runs where Slurm runs its job: the Node of the slurmd pod of the job's node.
        const std::string job =
            MustKubectl(env, {"-n", ns, "get", "pod", "hello", "-o",
                              R"(jsonpath={.metadata.annotations.tidepool\.dev/slurm-job-id})"});
        REQUIRE(!job.empty());
        const std::string info = JobInSlurm(env, ns, job);
        INFO("job " << job << ": " << info);
        CHECK(absl::StrContains(info, "JobState=RUNNING"));
        CHECK(absl::StrContains(info, "Comment=pod " + ns + "/hello: nodes test"));
        CHECK(absl::StrContains(info, "TimeLimit=00:10:00"));
        const std::string slurm_node = NodeListOf(info);
        REQUIRE(!slurm_node.empty());
        const std::string node_of_slurmd = MustKubectl(
            env, {"-n", ns, "get", "pod", slurm_node, "-o", "jsonpath={.spec.nodeName}"});
        CHECK(phase == "Running " + node_of_slurmd);
        CHECK(PollUntil(
            [&] {
              return absl::StrContains(TryKubectl(env, {"-n", ns, "logs", "hello"}).value_or(""),
                                       "placed by Slurm");
            },
            absl::Seconds(20), absl::Seconds(1)));

        // The pod deleted, its job ends.
        MustKubectl(env, {"-n", ns, "delete", "pod", "hello", "--wait=true"});
        std::string after;
        const bool ended =
            PollUntil(
                [&] {
                  after = JobInSlurm(env, ns, job);
                  return after.empty() || absl::StrContains(after, "JobState=CANCELLED");
                },
                absl::Seconds(30), absl::Seconds(1))
                .has_value();
        INFO("after the pod was deleted: " << after);
        CHECK(ended);

        CheckPreemptionBothWays(env, ns, tag, services);
      });
}

}  // namespace
}  // namespace tidepool::testing
