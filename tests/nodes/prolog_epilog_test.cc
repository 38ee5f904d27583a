// SlurmCluster spec.prolog / spec.epilog on real kubelet nodes, added to a running
// cluster: its slurmd pods keep running jobs (no node drained for a missing prolog);
// until a named ConfigMap exists no slurmd pod is made, and the NodeSet says which
// ConfigMap is missing; then the scripts of the ConfigMaps are mounted in the slurmd pod
// made next and slurmd runs them, in name order, around a job. Both Slurm versions.
#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "nodes/research_cluster.h"
#include "nodes/tidepool_services.h"
#include "support/eventually.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

// Two prolog scripts (their order shows in the file they write) and one epilog.
std::string ScriptsManifest(const std::string& ns) {
  return absl::StrReplaceAll(R"(apiVersion: v1
kind: ConfigMap
metadata: {name: research-prolog, namespace: NS}
data:
  10-first: |
    #!/bin/sh
    echo "first $SLURM_JOB_ID" >> /tmp/hooks-prolog-$SLURM_JOB_ID
  20-second: |
    #!/bin/sh
    echo "second $SLURM_JOB_ID" >> /tmp/hooks-prolog-$SLURM_JOB_ID
---
apiVersion: v1
kind: ConfigMap
metadata: {name: research-epilog, namespace: NS}
data:
  50-marker: |
    #!/bin/sh
    echo "epilog $SLURM_JOB_ID" > /tmp/hooks-epilog-$SLURM_JOB_ID
)",
                             {{"NS", ns}});
}

std::optional<std::string> InPod(const KubernetesEnv& env, const std::string& ns,
                                 const std::string& pod, const std::vector<std::string>& command) {
  if (pod == "research-controller-0") return InController(env, ns, command);
  std::vector<std::string> args = {"-n", ns, "exec", pod, "-c", "slurmd", "--"};
  args.insert(args.end(), command.begin(), command.end());
  return TryKubectl(env, args);
}

std::string NodeSetProgressing(const KubernetesEnv& env, const std::string& ns) {
  return TryKubectl(env, {"-n", ns, "get", "nodeset", "cpu", "-o",
                          "jsonpath={.status.conditions[?(@.type==\"Progressing\")].reason}: "
                          "{.status.conditions[?(@.type==\"Progressing\")].message}"})
      .value_or("");
}

// `sinfo` once both slurmd pods are idle in Slurm ("" when they do not get there).
std::string AwaitIdle(const KubernetesEnv& env, const std::string& ns) {
  std::string sinfo;
  const bool idle =
      PollUntil(
          [&] {
            sinfo = InPod(env, ns, "research-controller-0", {"sinfo", "-h", "-o", "%P %t %D %N"})
                        .value_or("(no answer)");
            return absl::StrContains(sinfo, "batch* idle 2 cpu-[01-02]");
          },
          absl::Seconds(240), absl::Seconds(2))
          .has_value();
  UNSCOPED_INFO("sinfo: " << sinfo << "\npods:\n"
                          << TryKubectl(env, {"-n", ns, "get", "pods", "-o", "wide"}).value_or(""));
  return idle ? sinfo : "";
}

// A batch job on `nodes` run to its end; its id, with its final state checked COMPLETED.
std::string RunJob(const KubernetesEnv& env, const std::string& ns, const std::string& nodes) {
  const std::string job(absl::StripAsciiWhitespace(
      InPod(env, ns, "research-controller-0",
            {"sbatch", "--parsable", "-w", nodes, "-o", "/dev/null", "--wrap", "srun hostname"})
          .value_or("")));
  REQUIRE(!job.empty());
  std::string state;
  REQUIRE(PollUntil(
      [&] {
        state =
            InPod(env, ns, "research-controller-0", {"scontrol", "show", "job", job}).value_or("");
        return absl::StrContains(state, "JobState=COMPLETED") ||
               absl::StrContains(state, "JobState=FAILED") ||
               // A failed prolog requeues the job held: no use waiting for it.
               (absl::StrContains(state, "JobState=PENDING") && absl::StrContains(state, "held"));
      },
      absl::Seconds(90), absl::Seconds(1)));
  INFO(state);
  CHECK(absl::StrContains(state, "JobState=COMPLETED"));
  return job;
}

TEST_CASE("prolog and epilog ConfigMaps run around every job on the slurmd pods") {
  const KubernetesEnv env = RequireKubernetes();
  MustKubectl(env, {"apply", "-f", SourceRoot() + "/manifests/crds"});
  MustKubectl(env, {"wait", "--for=condition=Established", "--timeout=60s", "crd",
                    "slurmclusters.tidepool.dev", "nodesets.tidepool.dev"});
  ForEachSlurmVersion(
      env, SlurmVersions::kNewest, "hooks", [&](const std::string& tag, const std::string& ns) {
        TidepoolServices services(env, ns);
        // A cluster without scripts first: its slurmd pods predate spec.prolog.
        Apply(env, ResearchClusterManifest({.ns = ns, .slurm_tag = tag}));
        {
          const bool idle = !AwaitIdle(env, ns).empty();
          INFO(services.Logs());  // as they are when the wait ended
          REQUIRE(idle);
        }

        // Scripts named, their ConfigMaps not there yet. The running pods stay and get the
        // runners slurm.conf now names (finding no scripts, they run none): jobs still run and
        // no node is drained for a failed prolog.
        Apply(env, ResearchClusterManifest({.ns = ns,
                                            .slurm_tag = tag,
                                            .prolog_config_map = "research-prolog",
                                            .epilog_config_map = "research-epilog"}));
        CHECK(PollUntil(
            [&] {
              return absl::StrContains(
                  InPod(env, ns, "research-controller-0", {"scontrol", "show", "config"})
                      .value_or(""),
                  "/etc/tidepool/hooks/prolog");
            },
            absl::Seconds(60), absl::Seconds(1)));
        // kubelet writes a ConfigMap's new keys into a running pod's volume at its next sync
        // of the pod (about a minute, longer on a busy machine); an annotation makes that sync
        // happen now, as the cluster-controller does for slurmctld's pods.
        for (const char* pod : {"cpu-01", "cpu-02"}) {
          MustKubectl(env,
                      {"-n", ns, "annotate", "pod", pod, "--overwrite",
                       absl::StrCat("test.tidepool.dev/nudge=", absl::ToUnixSeconds(absl::Now()))});
        }
        for (const char* pod : {"cpu-01", "cpu-02"}) {
          INFO(pod);
          CHECK(PollUntil(
              [&] {
                return InPod(env, ns, pod, {"test", "-x", "/etc/tidepool/hooks/prolog"})
                    .has_value();
              },
              absl::Seconds(180), absl::Seconds(2)));
        }
        RunJob(env, ns, "cpu-[01-02]");
        {
          const bool idle = !AwaitIdle(env, ns).empty();
          INFO(services.Logs());  // as they are when the wait ended
          CHECK(idle);
        }

        // A pod to be made now would wait in ContainerCreating: none is made, and the NodeSet
        // names the missing ConfigMap.
        MustKubectl(env, {"-n", ns, "delete", "pod", "cpu-02", "--wait=true"});
        std::string progressing;
        const bool explained =
            PollUntil(
                [&] {
                  progressing = NodeSetProgressing(env, ns);
                  return absl::StartsWith(progressing, "ScriptsConfigMapMissing");
                },
                absl::Seconds(60), absl::Seconds(1))
                .has_value();
        {
          INFO(progressing << "\n" << services.Logs());
          REQUIRE(explained);
        }
        INFO(progressing);
        CHECK(absl::StrContains(progressing, absl::StrCat("ConfigMap ", ns, "/research-prolog")));
        CHECK_FALSE(TryKubectl(env, {"-n", ns, "get", "pod", "cpu-02"}).has_value());
        CHECK(absl::StrContains(TryKubectl(env, {"-n", ns, "get", "events", "--field-selector",
                                                 "reason=ScriptsConfigMapMissing", "-o",
                                                 "jsonpath={.items[*].message}"})
                                    .value_or(""),
                                "research-prolog"));

        // The ConfigMaps arrive: cpu-02 is made with its scripts. (cpu-01 keeps running
        // without them until it is replaced: the pod template hash does not cover them.)
        Apply(env, ScriptsManifest(ns));
        {
          const bool idle = !AwaitIdle(env, ns).empty();
          INFO(services.Logs());  // as they are when the wait ended
          REQUIRE(idle);
        }
        // Gone from slurm.conf meanwhile, cpu-02 is listed again before its slurmd starts:
        // it waits for that instead of exiting into kubelet's growing restart back-off.
        CHECK(TryKubectl(env, {"-n", ns, "get", "pod", "cpu-02", "-o",
                               "jsonpath={.status.containerStatuses[0].restartCount}"})
                  .value_or("") == "0");
        const std::string job = RunJob(env, ns, "cpu-02");
        // Both prolog scripts, in name order.
        CHECK(InPod(env, ns, "cpu-02", {"cat", absl::StrCat("/tmp/hooks-prolog-", job)})
                  .value_or("") == absl::StrCat("first ", job, "\nsecond ", job, "\n"));
        // The epilog runs once the job is done (COMPLETING), so it may trail the state.
        std::string epilog;
        CHECK(PollUntil(
            [&] {
              epilog = InPod(env, ns, "cpu-02", {"cat", absl::StrCat("/tmp/hooks-epilog-", job)})
                           .value_or("");
              return epilog == absl::StrCat("epilog ", job, "\n");
            },
            absl::Seconds(30), absl::Seconds(1)));
      });
}

}  // namespace
}  // namespace tidepool::testing
