// SlurmCluster spec.prolog / spec.epilog on real kubelet nodes: the scripts of the named
// ConfigMaps are mounted in every slurmd pod and slurmd runs them, in name order, around
// a job. Until a named ConfigMap exists no slurmd pod is made, and the NodeSet says which
// ConfigMap is missing. Both Slurm versions.
#include <catch2/catch_test_macros.hpp>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "nodes/tidepool_services.h"
#include "support/eventually.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

std::string ClusterManifest(const std::string& ns, const std::string& tag) {
  return absl::StrReplaceAll(R"(apiVersion: tidepool.dev/v1alpha1
kind: SlurmCluster
metadata: {name: research, namespace: NS}
spec:
  clusterName: research
  images:
    controller: localhost/tidepool/slurmctld:TAG
    compute: localhost/tidepool/slurmd:TAG
    restApi: localhost/tidepool/slurmrestd:TAG
  controller: {stateSave: {size: 1Gi}}
  partitions: [{name: batch, nodeSets: [cpu], default: true}]
  slurmConfig: {ProctrackType: proctrack/linuxproc, TaskPlugin: task/none}
  prolog: {configMap: research-prolog}
  epilog: {configMap: research-epilog}
---
apiVersion: tidepool.dev/v1alpha1
kind: NodeSet
metadata: {name: cpu, namespace: NS}
spec:
  clusterRef: {name: research}
  nodeSelector: {tidepool.dev/testenv-node: "true"}
  template:
    spec:
      terminationGracePeriodSeconds: 5
      containers: [{name: slurmd, imagePullPolicy: Never}]
)",
                             {{"NS", ns}, {"TAG", tag}});
}

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
  std::vector<std::string> args = {"-n", ns, "exec", pod, "-c", "slurmd", "--"};
  if (pod == "research-controller-0") args = {"-n", ns, "exec", pod, "--"};
  args.insert(args.end(), command.begin(), command.end());
  return TryKubectl(env, args);
}

std::string NodeSetProgressing(const KubernetesEnv& env, const std::string& ns) {
  return TryKubectl(env, {"-n", ns, "get", "nodeset", "cpu", "-o",
                          "jsonpath={.status.conditions[?(@.type==\"Progressing\")].reason}: "
                          "{.status.conditions[?(@.type==\"Progressing\")].message}"})
      .value_or("");
}

TEST_CASE("prolog and epilog ConfigMaps run around every job on the slurmd pods") {
  const KubernetesEnv env = RequireKubernetes();
  MustKubectl(env, {"apply", "-f", SourceRoot() + "/manifests/crds"});
  MustKubectl(env, {"wait", "--for=condition=Established", "--timeout=60s", "crd",
                    "slurmclusters.tidepool.dev", "nodesets.tidepool.dev"});
  std::vector<std::string> tags;
  for (const std::string& image : ProjectImages(env)) {
    if (absl::StartsWith(image, "localhost/tidepool/slurmd:")) {
      tags.push_back(std::string(absl::StripPrefix(image, "localhost/tidepool/slurmd:")));
    }
  }
  REQUIRE(!tags.empty());
  for (const std::string& tag : tags) {
    INFO("Slurm " << tag);
    const std::string ns = absl::StrCat("hooks-", absl::StrReplaceAll(tag, {{".", "-"}}));
    EnsureNamespace(env, ns);
    TidepoolServices services(env, ns);
    Apply(env, ClusterManifest(ns, tag));

    // The ConfigMaps are not there yet: no pod, and the NodeSet names the missing one.
    std::string progressing;
    const bool explained = PollUntil(
                               [&] {
                                 progressing = NodeSetProgressing(env, ns);
                                 return absl::StartsWith(progressing, "ScriptsConfigMapMissing");
                               },
                               absl::Seconds(60), absl::Seconds(1))
                               .has_value();
    INFO(progressing << "\n" << services.Logs());
    REQUIRE(explained);
    CHECK(absl::StrContains(progressing, absl::StrCat("ConfigMap ", ns, "/research-prolog")));
    CHECK(TryKubectl(env,
                     {"-n", ns, "get", "pods", "-l", "tidepool.dev/component=slurmd", "-o", "name"})
              .value_or("x") == "");
    CHECK(absl::StrContains(
        TryKubectl(env, {"-n", ns, "get", "events", "--field-selector",
                         "reason=ScriptsConfigMapMissing", "-o", "jsonpath={.items[*].message}"})
            .value_or(""),
        "research-prolog"));

    Apply(env, ScriptsManifest(ns));
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
    INFO("sinfo: " << sinfo << "\npods:\n"
                   << TryKubectl(env, {"-n", ns, "get", "pods", "-o", "wide"}).value_or("") << "\n"
                   << services.Logs());
    REQUIRE(idle);
    const std::string conf =
        InPod(env, ns, "cpu-01", {"grep", "-E", "^(Prolog|Epilog)=", "/etc/slurm/slurm.conf"})
            .value_or("");
    CHECK(absl::StrContains(conf, "Prolog=/etc/tidepool/hooks/prolog"));
    CHECK(absl::StrContains(conf, "Epilog=/etc/tidepool/hooks/epilog"));

    const std::string job(absl::StripAsciiWhitespace(
        InPod(env, ns, "research-controller-0",
              {"sbatch", "--parsable", "-N2", "-o", "/dev/null", "--wrap", "srun hostname"})
            .value_or("")));
    REQUIRE(!job.empty());
    std::string state;
    REQUIRE(PollUntil(
        [&] {
          state = InPod(env, ns, "research-controller-0", {"scontrol", "show", "job", job})
                      .value_or("");
          return absl::StrContains(state, "JobState=COMPLETED") ||
                 absl::StrContains(state, "JobState=FAILED");
        },
        absl::Seconds(90), absl::Seconds(1)));
    INFO(state);
    CHECK(absl::StrContains(state, "JobState=COMPLETED"));
    for (const char* pod : {"cpu-01", "cpu-02"}) {
      INFO(pod);
      // Both prolog scripts, in name order, on every node of the job.
      CHECK(InPod(env, ns, pod, {"cat", absl::StrCat("/tmp/hooks-prolog-", job)}).value_or("") ==
            absl::StrCat("first ", job, "\nsecond ", job, "\n"));
      // The epilog runs once the job is done (COMPLETING), so it may trail the state.
      std::string epilog;
      CHECK(PollUntil(
          [&] {
            epilog =
                InPod(env, ns, pod, {"cat", absl::StrCat("/tmp/hooks-epilog-", job)}).value_or("");
            return epilog == absl::StrCat("epilog ", job, "\n");
          },
          absl::Seconds(30), absl::Seconds(1)));
    }
    MustKubectl(env, {"delete", "namespace", ns, "--wait=true", "--timeout=150s"},
                absl::Seconds(160));
  }
}

}  // namespace
}  // namespace tidepool::testing
