#include "nodes/research_cluster.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace tidepool::testing {

std::string ResearchClusterManifest(const ResearchClusterParts& parts) {
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
  return absl::StrReplaceAll(
      absl::StrCat(R"(apiVersion: tidepool.dev/v1alpha1
kind: SlurmCluster
metadata: {name: research, namespace: NS}
spec:
  clusterName: research
  images:
)",
                   images, R"(  controller: {stateSave: {size: 1Gi}}
)",
                   components, R"(  partitions: [{name: batch, nodeSets: [cpu], default: true}]
  # The test nodes have cgroup v1, which these Slurm versions' cgroup plugins no longer use.
  slurmConfig: {ProctrackType: proctrack/linuxproc, TaskPlugin: task/none}
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
)"),
      {{"NS", parts.ns}, {"TAG", parts.slurm_tag}});
}

}  // namespace tidepool::testing
