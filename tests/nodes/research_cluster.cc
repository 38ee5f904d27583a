#include "nodes/research_cluster.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "nodes/kubectl_helpers.h"

namespace tidepool::testing {

std::string ResearchClusterManifest(const ResearchClusterParts& parts) {
  std::string metadata = "{name: research, namespace: NS}";
  if (!parts.annotations.empty()) {
    metadata = absl::StrCat(
        "{name: research, namespace: NS, annotations: {",
        absl::StrJoin(parts.annotations, ", ",
                      [](std::string* out, const std::pair<const std::string, std::string>& a) {
                        absl::StrAppend(out, "\"", a.first, "\": \"", a.second, "\"");
                      }),
        "}}");
  }
  std::string images = R"(    controller: localhost/tidepool/slurmctld:TAG
    compute: localhost/tidepool/slurmd:TAG
    restApi: localhost/tidepool/slurmrestd:TAG
)";
  std::string components;
  if (!parts.mariadb_tag.empty()) {
    absl::StrAppend(&images, "    accounting: localhost/tidepool/slurmdbd:TAG\n",
                    "    accountingDatabase: localhost/tidepool/mariadb:", parts.mariadb_tag, "\n");
    absl::StrAppend(&components, "  accounting: {enabled: true, managed: {size: 1Gi}}\n");
  }
  if (parts.login) {
    absl::StrAppend(&images, "    login: localhost/tidepool/login:TAG\n");
    absl::StrAppend(&components, "  login: {replicas: 1, sshKeysSecret: research-ssh-keys}\n");
  }
  if (!parts.prolog_config_map.empty()) {
    absl::StrAppend(&components, "  prolog: {configMap: ", parts.prolog_config_map, "}\n");
  }
  if (!parts.epilog_config_map.empty()) {
    absl::StrAppend(&components, "  epilog: {configMap: ", parts.epilog_config_map, "}\n");
  }
  if (parts.pod_scheduler) {
    absl::StrAppend(&components, "  podScheduler: {enabled: true, schedulerName: tidepool}\n");
  }
  std::string slurm_config = "ProctrackType: proctrack/linuxproc, TaskPlugin: task/none";
  if (parts.compute && parts.preemption) {
    absl::StrAppend(&components, R"(  partitions:
  - {name: batch, nodeSets: [cpu], default: true, config: {PriorityTier: "1", PreemptMode: REQUEUE}}
  - {name: urgent, nodeSets: [cpu], config: {PriorityTier: "10", PreemptMode: "OFF"}}
)");
    absl::StrAppend(&slurm_config, ", PreemptType: preempt/partition_prio, PreemptMode: REQUEUE");
  } else if (parts.compute) {
    absl::StrAppend(&components, "  partitions: [{name: batch, nodeSets: [cpu], default: true}]\n");
  }
  std::string manifest = absl::StrCat(
      R"(apiVersion: tidepool.dev/v1alpha1
kind: SlurmCluster
metadata: )",
      metadata, R"(
spec:
  clusterName: research
  images:
)",
      images, R"(  controller: {stateSave: {size: 1Gi}}
)",
      components,
      R"(  # The test nodes have cgroup v1, which these Slurm versions' cgroup plugins no longer use.
  slurmConfig: {)",
      slurm_config, "}\n");
  if (parts.compute) {
    absl::StrAppend(&manifest, R"(---
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
)");
  }
  return absl::StrReplaceAll(manifest, {{"NS", parts.ns}, {"TAG", parts.slurm_tag}});
}

std::optional<std::string> InController(const KubernetesEnv& env, const std::string& ns,
                                        const std::vector<std::string>& command) {
  std::vector<std::string> args = {"-n", ns, "exec", "research-controller-0", "--"};
  args.insert(args.end(), command.begin(), command.end());
  return TryKubectl(env, args);
}

}  // namespace tidepool::testing
