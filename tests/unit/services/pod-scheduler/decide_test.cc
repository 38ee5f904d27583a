#include "decide.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::podsched {
namespace {

using Kind = Action::Kind;
using tidepool::v1::SlurmJob;

ScheduledPod Pod() {
  ScheduledPod pod;
  pod.pod.ns = "ml";
  pod.pod.name = "train-0";
  pod.pod.uid = "uid-1";
  pod.pod.phase = "Pending";
  pod.scheduler_name = "tidepool";
  pod.requests = PodRequests{.cpu_milli = 1000};
  return pod;
}

SlurmJob Job(uint32_t id, const std::string& state, const std::string& uid = "uid-1",
             const std::string& nodes = "") {
  SlurmJob job;
  job.set_job_id(id);
  job.set_name("tidepool-pod-" + uid);
  job.set_comment("pod ml/train-0");
  job.add_states(state);
  job.set_nodes(nodes);
  job.set_finished(state != "PENDING" && state != "RUNNING");
  return job;
}

ClusterView Cluster() {
  ClusterView view;
  view.node_of_slurm_node = {{"n-02", "node-b"}};
  view.slurmd_nodes = {"node-b"};
  return view;
}

std::vector<Kind> Kinds(const std::vector<Action>& actions) {
  std::vector<Kind> kinds;
  for (const Action& a : actions) kinds.push_back(a.kind);
  return kinds;
}

TEST_CASE("a waiting pod without a job gets one once the job view is fresh") {
  const ScheduledPod pod = Pod();
  CHECK(Decide({.pod = &pod, .jobs_view_fresh = false}, Cluster()).empty());
  std::vector<Action> actions = Decide({.pod = &pod, .jobs_view_fresh = true}, Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kSubmit});
  CHECK(actions[0].spec.name() == "tidepool-pod-uid-1");
}

TEST_CASE("a bad annotation marks the pod unschedulable once, and submits nothing") {
  ScheduledPod pod = Pod();
  pod.pod.annotations["tidepool.dev/exclusive"] = "always";
  std::vector<Action> actions = Decide({.pod = &pod, .jobs_view_fresh = true}, Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kMarkUnschedulable});
  CHECK(actions[0].reason == "InvalidPlacement");
  CHECK(absl::StrContains(actions[0].message, "tidepool.dev/exclusive: \"always\""));
  pod.pod.conditions["PodScheduled"] = {.type = "PodScheduled",
                                        .status = "False",
                                        .reason = "InvalidPlacement",
                                        .message = actions[0].message};
  CHECK(Decide({.pod = &pod, .jobs_view_fresh = true}, Cluster()).empty());
}

TEST_CASE("a pending job is recorded on the pod and waited for") {
  const ScheduledPod pod = Pod();
  std::vector<Action> actions =
      Decide({.pod = &pod, .jobs = {Job(7, "PENDING")}, .jobs_view_fresh = true}, Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kAnnotateJobId});
  CHECK(actions[0].job_id == 7);
}

TEST_CASE("a running job binds the pod to the Node of its Slurm node") {
  ScheduledPod pod = Pod();
  pod.pod.annotations["tidepool.dev/slurm-job-id"] = "7";
  std::vector<Action> actions =
      Decide({.pod = &pod, .jobs = {Job(7, "RUNNING", "uid-1", "n-02")}, .jobs_view_fresh = true},
             Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kBind});
  CHECK(actions[0].node == "node-b");
  pod.pod.node_name = "node-b";
  CHECK(Decide({.pod = &pod, .jobs = {Job(7, "RUNNING", "uid-1", "n-02")}}, Cluster()).empty());
}

TEST_CASE("a job on a Slurm node without a slurmd pod of the cluster binds nowhere") {
  ScheduledPod pod = Pod();
  pod.pod.annotations["tidepool.dev/slurm-job-id"] = "7";
  std::vector<Action> actions =
      Decide({.pod = &pod, .jobs = {Job(7, "RUNNING", "uid-1", "n-03")}}, Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kWaitForNode});
  CHECK(absl::StrContains(actions[0].message, "\"n-03\""));
}

TEST_CASE("an ended job deletes its pod with the job's state") {
  ScheduledPod pod = Pod();
  pod.pod.annotations["tidepool.dev/slurm-job-id"] = "7";
  pod.pod.node_name = "node-b";
  for (const char* state : {"CANCELLED", "TIMEOUT", "PREEMPTED", "COMPLETED", "NODE_FAIL"}) {
    std::vector<Action> actions = Decide({.pod = &pod, .jobs = {Job(7, state)}}, Cluster());
    INFO(state);
    REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kDeletePod});
    CHECK(actions[0].reason == "JobEnded");
    CHECK(absl::StrContains(actions[0].message, state));
  }
}

TEST_CASE("a bound pod whose job is pending again (requeued) is deleted") {
  ScheduledPod pod = Pod();
  pod.pod.annotations["tidepool.dev/slurm-job-id"] = "7";
  pod.pod.node_name = "node-b";
  CHECK(Kinds(Decide({.pod = &pod, .jobs = {Job(7, "PENDING")}}, Cluster())) ==
        std::vector<Kind>{Kind::kDeletePod});
}

TEST_CASE("a pod whose recorded job is gone from Slurm is deleted, once the view is fresh") {
  ScheduledPod pod = Pod();
  pod.pod.annotations["tidepool.dev/slurm-job-id"] = "7";
  CHECK(Decide({.pod = &pod, .jobs_view_fresh = false}, Cluster()).empty());
  const std::vector<Action> actions = Decide({.pod = &pod, .jobs_view_fresh = true}, Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kDeletePod});
  // The view may trail Slurm: sync.cc deletes only once the job stayed missing.
  CHECK(actions[0].job_missing);
}

TEST_CASE(
    "a bound pod recording no cluster is deleted for a missing job only on this cluster's Node") {
  // Pods placed before tidepool.dev/slurm-cluster existed, by two clusters whose schedulers
  // shared a name: a job id missing from this Slurm is another Slurm's on another Node.
  ScheduledPod pod = Pod();
  pod.pod.annotations["tidepool.dev/slurm-job-id"] = "7";
  pod.pod.node_name = "node-x";
  CHECK(Decide({.pod = &pod, .jobs_view_fresh = true}, Cluster()).empty());
  pod.pod.node_name = "node-b";
  REQUIRE(Kinds(Decide({.pod = &pod, .jobs_view_fresh = true}, Cluster())) ==
          std::vector<Kind>{Kind::kDeletePod});
  pod.pod.node_name = "node-x";
  pod.pod.annotations["tidepool.dev/slurm-cluster"] = "ml/research";
  ClusterView research = Cluster();
  research.cluster_key = "ml/research";
  REQUIRE(Kinds(Decide({.pod = &pod, .jobs_view_fresh = true}, research)) ==
          std::vector<Kind>{Kind::kDeletePod});
}

TEST_CASE("a gone, deleting or finished pod's active jobs are cancelled") {
  std::vector<Action> actions =
      Decide({.pod = nullptr, .jobs = {Job(7, "RUNNING"), Job(6, "COMPLETED")}}, Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kCancelJob});
  CHECK(actions[0].job_id == 7);
  CHECK(absl::StrContains(actions[0].message, "its pod is gone"));
  ScheduledPod deleting = Pod();
  deleting.pod.deleting = true;
  CHECK(Kinds(Decide({.pod = &deleting, .jobs = {Job(7, "PENDING")}}, Cluster())) ==
        std::vector<Kind>{Kind::kCancelJob});
  ScheduledPod done = Pod();
  done.pod.phase = "Succeeded";
  actions = Decide({.pod = &done, .jobs = {Job(7, "RUNNING")}}, Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kCancelJob});
  CHECK(absl::StrContains(actions[0].message, "Succeeded"));
}

TEST_CASE("an earlier pod's job and a duplicate are cancelled; the lowest active job stays") {
  const ScheduledPod pod = Pod();
  std::vector<Action> actions =
      Decide({.pod = &pod,
              .jobs = {Job(5, "RUNNING", "uid-0"), Job(9, "PENDING"), Job(8, "PENDING")},
              .jobs_view_fresh = true},
             Cluster());
  REQUIRE(Kinds(actions) ==
          std::vector<Kind>{Kind::kCancelJob, Kind::kCancelJob, Kind::kAnnotateJobId});
  CHECK(actions[0].job_id == 5);
  CHECK(actions[1].job_id == 9);
  CHECK(actions[2].job_id == 8);
}

TEST_CASE("a group member gets no job of its own; a bad group name marks it") {
  ScheduledPod member = Pod();
  member.pod.annotations["tidepool.dev/pod-group"] = "train";
  std::vector<Action> actions =
      Decide({.pod = &member, .jobs = {Job(7, "PENDING")}, .jobs_view_fresh = true}, Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kCancelJob});
  CHECK(absl::StrContains(actions[0].message, "belongs to pod group train"));
  member.pod.annotations["tidepool.dev/pod-group"] = "Train!";
  actions = Decide({.pod = &member, .jobs_view_fresh = true}, Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kMarkUnschedulable});
  CHECK(absl::StrContains(actions[0].message, "annotation tidepool.dev/pod-group: \"Train!\""));
}

TEST_CASE("a pod bound under its own job stays a single pod when it names a group later") {
  ScheduledPod pod = Pod();
  pod.pod.node_name = "node-b";
  pod.pod.annotations["tidepool.dev/slurm-job-id"] = "7";
  pod.pod.annotations["tidepool.dev/pod-group"] = "train";
  // Its running job is neither cancelled nor is the pod deleted; nothing is to be done.
  CHECK(Decide({.pod = &pod, .jobs = {Job(7, "RUNNING", "uid-1", "n-02")}, .jobs_view_fresh = true},
               Cluster())
            .empty());
}

TEST_CASE("a pod running under its group's job is left to the group, whatever it names now") {
  ScheduledPod pod = Pod();
  pod.pod.node_name = "node-b";
  pod.pod.annotations["tidepool.dev/slurm-job-id"] = "9";
  // Its tidepool.dev/pod-group was removed: without the running group it would be taken
  // for a single pod whose job is gone, and deleted.
  CHECK(
      Decide({.pod = &pod, .jobs_view_fresh = true, .recorded_group = "train"}, Cluster()).empty());
  const std::vector<Action> alone = Decide({.pod = &pod, .jobs_view_fresh = true}, Cluster());
  CHECK(Kinds(alone) == std::vector<Kind>{Kind::kDeletePod});
  // A bad name it carries now is not reported on a pod running in a group.
  pod.pod.annotations["tidepool.dev/pod-group"] = "Bad_Name";
  CHECK(
      Decide({.pod = &pod, .jobs_view_fresh = true, .recorded_group = "train"}, Cluster()).empty());
}

TEST_CASE("an account the placement policy does not allow marks the pod, and submits nothing") {
  ScheduledPod pod = Pod();
  pod.pod.annotations["tidepool.dev/account"] = "finance";
  const std::vector<Action> refused = Decide({.pod = &pod, .jobs_view_fresh = true}, Cluster());
  REQUIRE(Kinds(refused) == std::vector<Kind>{Kind::kMarkUnschedulable});
  CHECK(refused[0].reason == "InvalidPlacement");
  CHECK(absl::StrContains(refused[0].message, "tidepool.dev/account: \"finance\" is not allowed"));
  ClusterView allowing = Cluster();
  tidepool::v1::PlacementRule rule;
  rule.add_namespaces("ml");
  rule.add_accounts("finance");
  allowing.placement_policy = PlacementPolicy("research", {rule});
  const std::vector<Action> allowed = Decide({.pod = &pod, .jobs_view_fresh = true}, allowing);
  REQUIRE(Kinds(allowed) == std::vector<Kind>{Kind::kSubmit});
  CHECK(allowed[0].spec.account() == "finance");
}

TEST_CASE("a pod someone else bound, without a job, is left alone") {
  ScheduledPod pod = Pod();
  pod.pod.node_name = "node-x";
  CHECK(Decide({.pod = &pod, .jobs_view_fresh = true}, Cluster()).empty());
}

}  // namespace
}  // namespace tidepool::podsched
