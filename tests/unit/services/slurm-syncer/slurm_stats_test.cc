#include "slurm_stats.h"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_vector.hpp>

namespace tidepool::syncer {
namespace {

using slurm::rest::Job;
using slurm::rest::Node;
using slurm::rest::NodeState;
using slurm::rest::NodeStateSet;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

Node MakeNode(std::string name, NodeStateSet state, std::vector<std::string> partitions,
              int64_t cpus = 16, int64_t alloc_cpus = 0, std::string gres = "",
              std::string gres_used = "") {
  Node node;
  node.name = std::move(name);
  node.state = state;
  node.partitions = std::move(partitions);
  node.cpus = cpus;
  node.alloc_cpus = alloc_cpus;
  node.gres = std::move(gres);
  node.gres_used = std::move(gres_used);
  return node;
}

Job MakeJob(slurm::rest::JobId id, std::vector<std::string> state, std::string partition,
            std::optional<absl::Duration> waited = std::nullopt, std::string nodes = "") {
  Job job;
  job.id = id;
  job.state = std::move(state);
  job.partition = std::move(partition);
  job.nodes = std::move(nodes);
  if (waited.has_value()) job.submit_time = kNow - *waited;
  return job;
}

TEST_CASE("a node's metric state: down, drained or draining before its base state") {
  CHECK(NodeMetricState(MakeNode("a", {NodeState::kIdle}, {})) == "idle");
  CHECK(NodeMetricState(MakeNode("a", {NodeState::kMixed}, {})) == "mixed");
  CHECK(NodeMetricState(MakeNode("a", {NodeState::kIdle, NodeState::kDrain}, {})) == "drained");
  CHECK(NodeMetricState(MakeNode("a", {NodeState::kAllocated, NodeState::kDrain}, {})) ==
        "draining");
  CHECK(NodeMetricState(MakeNode("a", {NodeState::kDown, NodeState::kDrain}, {})) == "down");
  CHECK(NodeMetricState(MakeNode("a", {NodeState::kFuture}, {})) == "future");
  CHECK(NodeMetricState(MakeNode("a", {}, {})) == "unknown");
}

TEST_CASE("a job's metric state is its primary state in lower case, completing first") {
  CHECK(JobMetricState(MakeJob(1, {"PENDING"}, "batch")) == "pending");
  CHECK(JobMetricState(MakeJob(1, {"CANCELLED", "COMPLETING"}, "batch")) == "completing");
  CHECK(JobMetricState(MakeJob(1, {"NODE_FAIL"}, "batch")) == "node_fail");
  CHECK(JobMetricState(MakeJob(1, {}, "batch")) == "unknown");
}

TEST_CASE("Summarize counts nodes in each partition, with CPUs and GPUs allocated") {
  const std::vector<Node> nodes = {
      MakeNode("g1", {NodeState::kMixed}, {"gpu", "all"}, 64, 16, "gpu:h100:8(S:0-1)",
               "gpu:h100:2(IDX:0-1)"),
      MakeNode("g2", {NodeState::kIdle, NodeState::kDrain}, {"gpu"}, 64, 0, "gpu:h100:8(S:0-1)",
               "gpu:h100:0(IDX:N/A)"),
      MakeNode("c1", {NodeState::kAllocated}, {"all"}, 32, 32),
      MakeNode("lone", {NodeState::kIdle}, {}, 8, 0),
  };
  const SlurmStats stats = Summarize({}, nodes, kNow);
  using Key = SlurmStats::PartitionState;
  CHECK(stats.nodes == std::map<Key, int64_t>{{{"gpu", "mixed"}, 1},
                                              {{"gpu", "drained"}, 1},
                                              {{"all", "mixed"}, 1},
                                              {{"all", "allocated"}, 1},
                                              {{"", "idle"}, 1}});
  CHECK(stats.resources.at("gpu") ==
        PartitionResources{.cpus = 128, .cpus_allocated = 16, .gpus = 16, .gpus_allocated = 2});
  CHECK(stats.resources.at("all") ==
        PartitionResources{.cpus = 96, .cpus_allocated = 48, .gpus = 8, .gpus_allocated = 2});
  CHECK(stats.resources.at("") == PartitionResources{.cpus = 8});
}

TEST_CASE("Summarize counts jobs and the pending queue by reason and oldest wait") {
  std::vector<Job> jobs = {
      MakeJob(1, {"PENDING"}, "batch", absl::Minutes(10)),
      MakeJob(2, {"PENDING"}, "batch", absl::Minutes(3)),
      MakeJob(3, {"PENDING"}, "gpu", absl::Seconds(30)),
      MakeJob(4, {"RUNNING"}, "batch", absl::Hours(5), "c1"),
      MakeJob(5, {"PENDING"}, "gpu"),  // no submit time: counted, no wait
  };
  jobs[0].reason = "Priority";
  jobs[1].reason = "Resources";
  jobs[2].reason = "Resources";
  const SlurmStats stats = Summarize(jobs, {}, kNow);
  using Key = SlurmStats::PartitionState;
  CHECK(stats.jobs == std::map<Key, int64_t>{{{"batch", "pending"}, 2},
                                             {{"batch", "running"}, 1},
                                             {{"gpu", "pending"}, 2}});
  CHECK(stats.pending_by_reason ==
        std::map<std::string, int64_t>{{"Priority", 1}, {"Resources", 2}, {"None", 1}});
  CHECK(stats.oldest_pending_seconds ==
        std::map<std::string, double>{{"batch", 600.0}, {"gpu", 30.0}});
}

TEST_CASE("Summarize gives an idle partition 0 running, 0 pending and no wait") {
  const SlurmStats stats = Summarize({MakeJob(1, {"RUNNING"}, "gpu", absl::Minutes(1), "g1")},
                                     {MakeNode("c1", {NodeState::kIdle}, {"batch"}, 32, 0),
                                      MakeNode("g1", {NodeState::kMixed}, {"gpu"}, 64, 8),
                                      MakeNode("lone", {NodeState::kIdle}, {}, 8, 0)},
                                     kNow);
  using Key = SlurmStats::PartitionState;
  CHECK(stats.jobs == std::map<Key, int64_t>{{{"batch", "pending"}, 0},
                                             {{"batch", "running"}, 0},
                                             {{"gpu", "pending"}, 0},
                                             {{"gpu", "running"}, 1}});
  CHECK(stats.oldest_pending_seconds ==
        std::map<std::string, double>{{"batch", 0.0}, {"gpu", 0.0}});
  CHECK(stats.pending_by_reason.empty());
}

TEST_CASE("NewStartWaits counts each started job once, not those running at priming") {
  Job early = MakeJob(1, {"RUNNING"}, "batch", absl::Minutes(5), "c1");
  early.start_time = kNow - absl::Minutes(4);
  std::set<slurm::rest::JobId> started;
  CHECK(NewStartWaits({early}, &started, /*prime=*/true).empty());
  CHECK(started == std::set<slurm::rest::JobId>{1});

  Job later = MakeJob(2, {"RUNNING"}, "batch", absl::Seconds(90), "c1");
  later.start_time = kNow - absl::Seconds(30);
  Job cancelled_pending = MakeJob(3, {"CANCELLED"}, "batch", absl::Seconds(90));
  cancelled_pending.start_time = kNow;  // Slurm stamps the cancel; it never had nodes
  CHECK_THAT(NewStartWaits({early, later, cancelled_pending}, &started, false),
             Catch::Matchers::Equals(std::vector<double>{60.0}));
  CHECK(NewStartWaits({early, later}, &started, false).empty());
  // Job 1 no longer listed: forgotten.
  CHECK(NewStartWaits({later}, &started, false).empty());
  CHECK(started == std::set<slurm::rest::JobId>{2});
}

}  // namespace
}  // namespace tidepool::syncer
