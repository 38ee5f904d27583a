// The Slurm images working together as pods on real kubelet nodes, for each Slurm version
// the nodes carry: slurmctld (StatefulSet + headless Service), two slurmd (StatefulSet, so
// their pod names are their Slurm node names), and a login pod with the clients. A munge
// key Secret and a slurm.conf ConfigMap written by hand stand in for what cluster-controller
// will render; the entrypoint installs the key and starts munged. A batch job runs on both
// slurmd pods.
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "support/eventually.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

constexpr char kSlurmNamespace[] = "nodes-slurm";

std::string SlurmConf() {
  return R"(ClusterName=podsmoke
SlurmctldHost=slurmctld-0(slurmctld-0.slurmctld)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
SelectType=select/cons_tres
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=slurmd-[0-1] NodeAddr=slurmd-[0-1].slurmd CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=batch Nodes=ALL Default=YES MaxTime=INFINITE State=UP
)";
}

// Everything of one Slurm version: the daemons' pods mount the same configuration and key.
std::string ClusterManifest(const std::string& tag) {
  const std::string image = absl::StrCat("localhost/tidepool/");
  const std::string volumes = R"(
      volumes:
      - {name: conf, configMap: {name: slurm-conf}}
      - {name: munge, secret: {secretName: munge-key}})";
  const std::string mounts = R"(
        volumeMounts:
        - {name: conf, mountPath: /etc/slurm}
        - {name: munge, mountPath: /etc/tidepool/munge, readOnly: true})";
  auto statefulset = [&](const std::string& name, const std::string& role,
                         const std::string& command, int replicas) {
    return absl::StrCat(R"(---
apiVersion: v1
kind: Service
metadata: {name: )",
                        name, ", namespace: ", kSlurmNamespace, R"(}
spec:
  clusterIP: None
  publishNotReadyAddresses: true
  selector: {app: )",
                        name, R"(}
  ports: [{name: slurm, port: 6817}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: )",
                        name, ", namespace: ", kSlurmNamespace, R"(}
spec:
  serviceName: )",
                        name, R"(
  replicas: )",
                        replicas, R"(
  podManagementPolicy: Parallel
  selector: {matchLabels: {app: )",
                        name, R"(}}
  template:
    metadata: {labels: {app: )",
                        name, R"(}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: )",
                        role, R"(
        image: )",
                        image, role, ":", tag, R"(
        imagePullPolicy: Never
        args: )",
                        command, mounts, volumes, "\n");
  };
  return absl::StrCat(statefulset("slurmctld", "slurmctld", "[slurmctld, -D]", 1),
                      statefulset("slurmd", "slurmd", "[slurmd, -D]", 2),
                      statefulset("login", "login", "[sleep, infinity]", 1));
}

// "STATE COUNT" lines of sinfo in the login pod.
std::optional<std::string> Sinfo(const KubernetesEnv& env) {
  return TryKubectl(env,
                    {"-n", kSlurmNamespace, "exec", "login-0", "--", "sinfo", "-h", "-o", "%t %D"});
}

TEST_CASE("a Slurm cluster of pods (slurmctld; two slurmd; login) runs a batch job") {
  const KubernetesEnv env = RequireKubernetes();
  std::vector<std::string> tags;
  for (const std::string& image : ProjectImages(env)) {
    if (absl::StartsWith(image, "localhost/tidepool/slurmctld:")) {
      tags.push_back(std::string(absl::StripPrefix(image, "localhost/tidepool/slurmctld:")));
    }
  }
  REQUIRE(!tags.empty());
  for (const std::string& tag : tags) {
    INFO("Slurm " << tag);
    EnsureNamespace(env, kSlurmNamespace);
    const std::string key = MustKubectl(env, {"-n", kSlurmNamespace, "get", "secret", "munge-key",
                                              "--ignore-not-found", "-o", "name"});
    if (key.empty()) {
      // 1024 random bytes, as munge wants; the API server keeps them in the Secret.
      MustRun({"/bin/sh", "-c",
               absl::StrCat("head -c 1024 /dev/urandom >", TestenvRunDir(), "/munge.key")});
      MustKubectl(env, {"-n", kSlurmNamespace, "create", "secret", "generic", "munge-key",
                        absl::StrCat("--from-file=munge.key=", TestenvRunDir(), "/munge.key")});
    }
    MustKubectl(env, {"-n", kSlurmNamespace, "create", "configmap", "slurm-conf",
                      absl::StrCat("--from-literal=slurm.conf=", SlurmConf()),
                      "--from-literal=cgroup.conf=CgroupPlugin=disabled\n"});
    Apply(env, ClusterManifest(tag));

    for (const char* set : {"statefulset/slurmctld", "statefulset/slurmd", "statefulset/login"}) {
      MustKubectl(env, {"-n", kSlurmNamespace, "rollout", "status", set, "--timeout=120s"},
                  absl::Seconds(130));
    }
    std::optional<std::string> sinfo;
    const bool idle = PollUntil(
                          [&] {
                            sinfo = Sinfo(env);
                            return sinfo && absl::StrContains(*sinfo, "idle 2");
                          },
                          absl::Seconds(60), absl::Seconds(1))
                          .has_value();
    INFO("sinfo: " << sinfo.value_or("(no answer)") << "\nslurmctld log:\n"
                   << TryKubectl(env, {"-n", kSlurmNamespace, "logs", "slurmctld-0", "--tail=30"})
                          .value_or(""));
    REQUIRE(idle);

    const std::string submitted =
        MustKubectl(env, {"-n", kSlurmNamespace, "exec", "login-0", "--", "sbatch", "--parsable",
                          "-N2", "-o", "/dev/null", "--wrap", "srun hostname"});
    const std::string job_id(absl::StripAsciiWhitespace(submitted));
    INFO("job " << job_id);
    std::optional<std::string> job;
    REQUIRE(PollUntil(
        [&] {
          job = TryKubectl(env, {"-n", kSlurmNamespace, "exec", "login-0", "--", "scontrol", "show",
                                 "job", job_id});
          return job && (absl::StrContains(*job, "JobState=COMPLETED") ||
                         absl::StrContains(*job, "JobState=FAILED"));
        },
        absl::Seconds(60), absl::Seconds(1)));
    INFO(*job);
    CHECK(absl::StrContains(*job, "JobState=COMPLETED"));
    CHECK(absl::StrContains(*job, "NodeList=slurmd-[0-1]"));

    MustKubectl(env, {"delete", "namespace", kSlurmNamespace, "--wait=true", "--timeout=120s"},
                absl::Seconds(130));
  }
}

}  // namespace
}  // namespace tidepool::testing
