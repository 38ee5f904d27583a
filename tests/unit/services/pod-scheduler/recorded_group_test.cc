#include "recorded_group.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

using tidepool::v1::JobChange;
using tidepool::v1::SlurmJob;
using tidepool::v1::WatchJobsResponse;

SlurmJob Job(uint32_t id, const std::string& name, const std::string& comment) {
  SlurmJob job;
  job.set_job_id(id);
  job.set_user("slurm");
  job.set_name(name);
  job.set_comment(comment);
  job.add_states("RUNNING");
  return job;
}

// Group ml/train's job 9 and pod ml/solo's own job 5.
void Fill(JobTable& table) {
  table.SetJobUser("slurm");
  WatchJobsResponse snapshot;
  snapshot.set_kind(WatchJobsResponse::SNAPSHOT);
  snapshot.set_snapshot_complete(true);
  snapshot.mutable_observed_at()->set_seconds(1001);
  for (const SlurmJob& job : {Job(9, "tidepool-group-0123456789abcdef", "group ml/train"),
                              Job(5, "tidepool-pod-uid-5", "pod ml/solo")}) {
    JobChange* change = snapshot.add_changes();
    change->set_type(JobChange::ADDED);
    *change->mutable_job() = job;
  }
  table.Apply(snapshot);
}

constexpr char kCluster[] = "hpc/research";

ScheduledPod Recording(const std::string& ns, const std::string& job_id,
                       const std::string& cluster = kCluster) {
  ScheduledPod pod;
  pod.pod.ns = ns;
  pod.pod.name = "train-0";
  if (!job_id.empty()) pod.pod.annotations["tidepool.dev/slurm-job-id"] = job_id;
  if (!cluster.empty()) pod.pod.annotations["tidepool.dev/slurm-cluster"] = cluster;
  return pod;
}

TEST_CASE("a pod recording its group's job is that group's, pending or bound, named or not") {
  JobTable table(absl::FromUnixSeconds(1000));
  Fill(table);
  CHECK(RecordedGroupOf(table, Recording("ml", "9"), kCluster) == "train");
  ScheduledPod bound = Recording("ml", "9");
  bound.pod.node_name = "node-a";
  bound.pod.annotations["tidepool.dev/pod-group"] = "other";
  CHECK(RecordedGroupOf(table, bound, kCluster) == "train");
}

TEST_CASE("a job id recorded for another cluster, or for none, names no group here") {
  JobTable table(absl::FromUnixSeconds(1000));
  Fill(table);
  // Job ids repeat between Slurms: 9 there is not this cluster's group job.
  CHECK_FALSE(RecordedGroupOf(table, Recording("ml", "9", "lab/other"), kCluster).has_value());
  // Annotated before clusters were recorded: its annotations decide, not the id.
  CHECK_FALSE(RecordedGroupOf(table, Recording("ml", "9", ""), kCluster).has_value());
}

TEST_CASE("no recorded group for another namespace, a pod's own job, or an unknown one") {
  JobTable table(absl::FromUnixSeconds(1000));
  Fill(table);
  CHECK_FALSE(RecordedGroupOf(table, Recording("lab", "9"), kCluster).has_value());
  CHECK_FALSE(RecordedGroupOf(table, Recording("ml", "5"), kCluster).has_value());
  CHECK_FALSE(RecordedGroupOf(table, Recording("ml", "77"), kCluster).has_value());
  CHECK_FALSE(RecordedGroupOf(table, Recording("ml", ""), kCluster).has_value());
  CHECK_FALSE(RecordedGroupOf(table, Recording("ml", "x"), kCluster).has_value());
}

}  // namespace
}  // namespace tidepool::podsched
