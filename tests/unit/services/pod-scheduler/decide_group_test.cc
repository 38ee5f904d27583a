#include "decide_group.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "job_identity.h"
#include "pod_group.h"

namespace tidepool::podsched {
namespace {

using Kind = Action::Kind;
using tidepool::v1::SlurmJob;

ScheduledPod Member(const std::string& name, int size = 3, const std::string& time_limit = "10") {
  ScheduledPod pod;
  pod.pod.ns = "ml";
  pod.pod.name = name;
  pod.pod.uid = "uid-" + name;
  pod.pod.phase = "Pending";
  pod.pod.annotations = {{"tidepool.dev/pod-group", "train"},
                         {"tidepool.dev/pod-group-size", std::to_string(size)},
                         {"tidepool.dev/time-limit", time_limit}};
  pod.scheduler_name = "tidepool";
  pod.requests = PodRequests{.cpu_milli = 1000, .memory_bytes = 1LL << 30};
  return pod;
}

std::string JobNameOf(const std::vector<ScheduledPod>& pods) {
  std::vector<std::string> uids;
  for (const ScheduledPod& pod : pods) uids.push_back(pod.pod.uid);
  return GroupJobNameFor(GroupFingerprint(uids));
}

SlurmJob Job(uint32_t id, const std::string& name, const std::string& state,
             const std::string& nodes = "") {
  SlurmJob job;
  job.set_job_id(id);
  job.set_name(name);
  job.set_comment("group ml/train");
  job.add_states(state);
  job.set_nodes(nodes);
  job.set_finished(state != "PENDING" && state != "RUNNING");
  return job;
}

ClusterView Cluster() {
  ClusterView view;
  view.node_of_slurm_node = {{"n-01", "node-a"}, {"n-02", "node-b"}, {"n-03", "node-c"}};
  view.slurmd_nodes = {"node-a", "node-b", "node-c"};
  return view;
}

GroupInput Input(const std::vector<ScheduledPod>& pods, std::vector<SlurmJob> jobs = {}) {
  GroupInput input{.ns = "ml", .group = "train", .jobs = std::move(jobs), .jobs_view_fresh = true};
  for (const ScheduledPod& pod : pods) input.members.push_back(&pod);
  return input;
}

std::vector<Kind> Kinds(const std::vector<Action>& actions) {
  std::vector<Kind> kinds;
  for (const Action& a : actions) kinds.push_back(a.kind);
  return kinds;
}

TEST_CASE("nothing is submitted before every member of the group exists") {
  const std::vector<ScheduledPod> two = {Member("w-0"), Member("w-1")};
  CHECK(DecideGroup(Input(two), Cluster()).empty());
}

TEST_CASE("a complete group becomes one job of N nodes, one task each, sized by its largest") {
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  three[1].requests = PodRequests{.cpu_milli = 3500, .memory_bytes = 1LL << 30, .gpus = 2};
  GroupInput not_fresh = Input(three);
  not_fresh.jobs_view_fresh = false;
  CHECK(DecideGroup(not_fresh, Cluster()).empty());
  std::vector<Action> actions = DecideGroup(Input(three), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kSubmit});
  const tidepool::v1::JobSpec& spec = actions[0].spec;
  CHECK(spec.nodes() == "3");
  CHECK(spec.tasks() == 3);
  CHECK(spec.cpus_per_task() == 4);
  CHECK(spec.memory_per_node_mb() == 1024);
  CHECK(spec.tres_per_node() == "gres/gpu:2");
  CHECK(spec.time_limit_minutes() == 10);
  CHECK(spec.name() == JobNameOf(three));
  CHECK(spec.comment() == "group ml/train");
}

TEST_CASE("members that disagree, or too many of them, mark every member and submit nothing") {
  std::vector<ScheduledPod> sizes = {Member("w-0"), Member("w-1", 2), Member("w-2")};
  std::vector<Action> actions = DecideGroup(Input(sizes), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>(3, Kind::kMarkUnschedulable));
  CHECK(absl::StrContains(actions[0].message, "disagree on tidepool.dev/pod-group-size"));
  CHECK(actions[2].pod == "w-2");

  std::vector<ScheduledPod> limits = {Member("w-0"), Member("w-1", 3, "20"), Member("w-2")};
  actions = DecideGroup(Input(limits), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>(3, Kind::kMarkUnschedulable));
  CHECK(absl::StrContains(actions[0].message, "placement annotations (pod w-0 and pod w-1)"));

  std::vector<ScheduledPod> four = {Member("w-0", 2), Member("w-1", 2), Member("w-2", 2)};
  actions = DecideGroup(Input(four), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>(3, Kind::kMarkUnschedulable));
  CHECK(absl::StrContains(actions[0].message, "has 3 pods, but tidepool.dev/pod-group-size is 2"));

  std::vector<ScheduledPod> bad = {Member("w-0"), Member("w-1", 3, "never"), Member("w-2")};
  actions = DecideGroup(Input(bad), Cluster());
  REQUIRE_FALSE(actions.empty());
  CHECK(absl::StartsWith(actions[0].message, "pod w-1: annotation tidepool.dev/time-limit"));
}

TEST_CASE("a QoS the placement policy does not allow marks every member, submits nothing") {
  std::vector<ScheduledPod> members = {Member("w-0"), Member("w-1"), Member("w-2")};
  for (ScheduledPod& member : members) member.pod.annotations["tidepool.dev/qos"] = "high";
  std::vector<Action> actions = DecideGroup(Input(members), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>(3, Kind::kMarkUnschedulable));
  CHECK(absl::StrContains(actions[0].message, "tidepool.dev/qos: \"high\" is not allowed"));
}

TEST_CASE("a running group job binds every member to a distinct Node of its nodes") {
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  for (ScheduledPod& pod : three) pod.pod.annotations["tidepool.dev/slurm-job-id"] = "9";
  three[1].pod.node_name = "node-b";  // bound before a restart
  std::vector<Action> actions =
      DecideGroup(Input(three, {Job(9, JobNameOf(three), "RUNNING", "n-[01-03]")}), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kBind, Kind::kBind});
  CHECK(actions[0].pod == "w-0");
  CHECK(actions[0].node == "node-a");
  CHECK(actions[1].pod == "w-2");
  CHECK(actions[1].node == "node-c");
}

TEST_CASE("no member is bound while one of the job's nodes has no slurmd pod") {
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  std::vector<Action> actions =
      DecideGroup(Input(three, {Job(9, JobNameOf(three), "RUNNING", "n-[02-04]")}), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kAnnotateJobId, Kind::kAnnotateJobId,
                                              Kind::kAnnotateJobId, Kind::kWaitForNode});
  CHECK(absl::StrContains(actions[3].message, "\"n-04\""));
}

TEST_CASE("a group job that ended deletes every member") {
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  for (ScheduledPod& pod : three) pod.pod.annotations["tidepool.dev/slurm-job-id"] = "9";
  std::vector<Action> actions =
      DecideGroup(Input(three, {Job(9, JobNameOf(three), "PREEMPTED", "n-[01-03]")}), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>(3, Kind::kDeletePod));
  CHECK(absl::StrContains(actions[1].message, "PREEMPTED"));
  CHECK(actions[1].pod == "w-1");
  CHECK_FALSE(actions[1].job_missing);
}

TEST_CASE("members whose group job is missing from the view are deleted once it stays missing") {
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  for (ScheduledPod& pod : three) pod.pod.annotations["tidepool.dev/slurm-job-id"] = "9";
  std::vector<Action> actions = DecideGroup(Input(three), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>(3, Kind::kDeletePod));
  CHECK(absl::StrContains(actions[0].message, "Slurm job 9 of pod group train is gone from Slurm"));
  for (const Action& action : actions) CHECK(action.job_missing);
}

TEST_CASE(
    "bound members recording no cluster, off this cluster's Nodes, are neither deleted nor "
    "placed") {
  // Another cluster's group, placed under the same scheduler name before pods recorded
  // their cluster: its job is in the other Slurm.
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  for (ScheduledPod& pod : three) {
    pod.pod.annotations["tidepool.dev/slurm-job-id"] = "9";
    pod.pod.node_name = "node-x";
    pod.pod.phase = "Running";
  }
  CHECK(DecideGroup(Input(three), Cluster()).empty());
  // One member where this cluster's slurmd runs does not make the group ours: deleting it
  // alone would break the other cluster's gang.
  three[1].pod.node_name = "node-b";
  CHECK(DecideGroup(Input(three), Cluster()).empty());
  // Recording this cluster, they are ours, and go with the job gone from our Slurm.
  for (ScheduledPod& pod : three) pod.pod.annotations["tidepool.dev/slurm-cluster"] = "ml/research";
  ClusterView research = Cluster();
  research.cluster_key = "ml/research";
  CHECK(Kinds(DecideGroup(Input(three), research)) == std::vector<Kind>(3, Kind::kDeletePod));
  // On this cluster's Nodes all, recording none: ours from before the upgrade.
  for (ScheduledPod& pod : three) {
    pod.pod.annotations.erase("tidepool.dev/slurm-cluster");
    pod.pod.node_name = "node-a";
  }
  CHECK(Kinds(DecideGroup(Input(three), Cluster())) == std::vector<Kind>(3, Kind::kDeletePod));
}

TEST_CASE("a member deleted cancels the job; once it ended the other members go too") {
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  const std::string name = JobNameOf(three);
  three[2].pod.deleting = true;
  std::vector<Action> actions =
      DecideGroup(Input(three, {Job(9, name, "RUNNING", "n-[01-03]")}), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kCancelJob});
  CHECK(absl::StrContains(actions[0].message, "pod w-2 of group train is being deleted"));
  actions = DecideGroup(Input(three, {Job(9, name, "CANCELLED", "n-[01-03]")}), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>(2, Kind::kDeletePod));
}

// The remaining members of job 9 (named `name`), whose member was lost: they wait while
// it is listed active, go with its final state once it ended, and as missing once gone.
void CheckMembersWaitForCancelledJob(const std::vector<ScheduledPod>& members,
                                     const std::string& name) {
  // Listed RUNNING still (the cancel is under way): cancel again, delete no one yet.
  std::vector<Action> actions =
      DecideGroup(Input(members, {Job(9, name, "RUNNING", "n-[01-03]")}), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kCancelJob});
  actions = DecideGroup(Input(members, {Job(9, name, "CANCELLED", "n-[01-03]")}), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>(2, Kind::kDeletePod));
  for (const Action& action : actions) {
    CHECK_FALSE(action.job_missing);
    CHECK(absl::StrContains(action.message, "CANCELLED"));
  }
  actions = DecideGroup(Input(members), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>(2, Kind::kDeletePod));
  CHECK(actions[0].job_missing);
}

TEST_CASE("members of a job being cancelled for a lost member wait for its end, not missing") {
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  const std::string name = JobNameOf(three);
  for (ScheduledPod& pod : three) pod.pod.annotations["tidepool.dev/slurm-job-id"] = "9";
  SECTION("the lost member still cached as deleting") {
    three[0].pod.deleting = true;
    CheckMembersWaitForCancelledJob(three, name);
  }
  SECTION("the lost member gone from the cache") {
    CheckMembersWaitForCancelledJob({three[0], three[2]}, name);
  }
}

TEST_CASE("members that ended before the group's job are history, not a lost member") {
  std::vector<ScheduledPod> pods = {Member("w-0"), Member("w-1"), Member("w-2")};
  const std::string name = JobNameOf(pods);
  SECTION("a failed pod of an earlier run, its job ended") {
    ScheduledPod old = Member("w-old");
    old.pod.phase = "Failed";
    old.pod.annotations["tidepool.dev/slurm-job-id"] = "7";
    pods.push_back(old);
    const SlurmJob earlier = Job(7, "tidepool-group-0000000000000000", "FAILED");
    CHECK(Kinds(DecideGroup(Input(pods, {earlier}), Cluster())) ==
          std::vector<Kind>{Kind::kSubmit});
    // Its job is the group's: bound, not cancelled and then deleted over and over.
    const std::vector<Action> actions =
        DecideGroup(Input(pods, {earlier, Job(8, name, "RUNNING", "n-[01-03]")}), Cluster());
    CHECK(Kinds(actions) == std::vector<Kind>{Kind::kAnnotateJobId, Kind::kAnnotateJobId,
                                              Kind::kAnnotateJobId, Kind::kBind, Kind::kBind,
                                              Kind::kBind});
  }
  SECTION("a pending pod deleted, its replacement here") {
    ScheduledPod replaced = Member("w-gone");
    replaced.pod.deleting = true;
    pods.push_back(replaced);
    CHECK(Kinds(DecideGroup(Input(pods), Cluster())) == std::vector<Kind>{Kind::kSubmit});
    CHECK(Kinds(DecideGroup(Input(pods, {Job(8, name, "PENDING")}), Cluster())) ==
          std::vector<Kind>(3, Kind::kAnnotateJobId));
  }
}

TEST_CASE("a job of an earlier membership is cancelled") {
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  std::vector<Action> actions =
      DecideGroup(Input(three, {Job(7, "tidepool-group-0000000000000000", "PENDING")}), Cluster());
  REQUIRE(Kinds(actions) == std::vector<Kind>{Kind::kCancelJob, Kind::kSubmit});
  CHECK(absl::StrContains(actions[0].message, "the pods of group train changed"));
}

TEST_CASE("bound members whose group job is pending again are deleted") {
  std::vector<ScheduledPod> three = {Member("w-0"), Member("w-1"), Member("w-2")};
  for (ScheduledPod& pod : three) pod.pod.annotations["tidepool.dev/slurm-job-id"] = "9";
  three[0].pod.node_name = "node-a";
  CHECK(Kinds(DecideGroup(Input(three, {Job(9, JobNameOf(three), "PENDING")}), Cluster())) ==
        std::vector<Kind>(3, Kind::kDeletePod));
}

}  // namespace
}  // namespace tidepool::podsched
