#include "running_groups.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

using tidepool::v1::JobChange;
using tidepool::v1::SlurmJob;
using tidepool::v1::WatchJobsResponse;

const absl::Time kStart = absl::FromUnixSeconds(1000);

SlurmJob Job(uint32_t id, const std::string& name, const std::string& comment,
             const std::string& nodes) {
  SlurmJob job;
  job.set_job_id(id);
  job.set_user("slurm");
  job.set_name(name);
  job.set_comment(comment);
  job.add_states("RUNNING");
  job.set_nodes(nodes);
  return job;
}

// Fills `table` with group ml/train's job 9 on n-01 and n-02, and pod ml/solo's own job 5
// on n-03.
void Fill(JobTable& table) {
  table.SetJobUser("slurm");
  WatchJobsResponse snapshot;
  snapshot.set_kind(WatchJobsResponse::SNAPSHOT);
  snapshot.set_snapshot_complete(true);
  snapshot.mutable_observed_at()->set_seconds(absl::ToUnixSeconds(kStart) + 1);
  for (const SlurmJob& job :
       {Job(9, "tidepool-group-0123456789abcdef", "group ml/train", "n-[01-02]"),
        Job(5, "tidepool-pod-uid-5", "pod ml/solo", "n-03")}) {
    JobChange* change = snapshot.add_changes();
    change->set_type(JobChange::ADDED);
    *change->mutable_job() = job;
  }
  table.Apply(snapshot);
}

ClusterView Cluster() {
  ClusterView view;
  view.node_of_slurm_node = {{"n-01", "node-a"}, {"n-02", "node-b"}, {"n-03", "node-c"}};
  return view;
}

ScheduledPod Bound(const std::string& ns, const std::string& node, const std::string& job_id) {
  ScheduledPod pod;
  pod.pod.ns = ns;
  pod.pod.name = "train-0";
  pod.pod.uid = "uid-0";
  pod.pod.node_name = node;
  if (!job_id.empty()) pod.pod.annotations["tidepool.dev/slurm-job-id"] = job_id;
  return pod;
}

TEST_CASE("a pod bound under its group's job, on one of its nodes, runs in that group") {
  JobTable table(kStart);
  Fill(table);
  const ClusterView cluster = Cluster();
  RunningGroups groups(table, cluster);
  CHECK(groups.Of(Bound("ml", "node-a", "9")) == "train");
  CHECK(groups.Of(Bound("ml", "node-b", "9")) == "train");
}

TEST_CASE("no running group without the group's job, its Node or its namespace") {
  JobTable table(kStart);
  Fill(table);
  const ClusterView cluster = Cluster();
  RunningGroups groups(table, cluster);
  CHECK_FALSE(groups.Of(Bound("ml", "", "9")).has_value());        // pending
  CHECK_FALSE(groups.Of(Bound("ml", "node-c", "9")).has_value());  // not the job's Node
  CHECK_FALSE(groups.Of(Bound("lab", "node-a", "9")).has_value());
  CHECK_FALSE(groups.Of(Bound("ml", "node-c", "5")).has_value());   // a pod's own job
  CHECK_FALSE(groups.Of(Bound("ml", "node-a", "77")).has_value());  // no such job
  CHECK_FALSE(groups.Of(Bound("ml", "node-a", "")).has_value());
  CHECK_FALSE(groups.Of(Bound("ml", "node-a", "x")).has_value());
}

}  // namespace
}  // namespace tidepool::podsched
