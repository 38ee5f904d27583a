#include "slurm_source.h"

#include <catch2/catch_test_macros.hpp>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "common/clock.h"

namespace tidepool::nodeset {
namespace {

using tidepool::v1::SlurmNode;

// Slurm behind slurm-syncer, as the source sees it through api::SyncerClient: no watch
// (its stream ends at once), UpdateNode answers with the node, GetNodes knows no node.
class FakeSyncer : public api::SyncerClient {
 public:
  std::unique_ptr<api::NodeWatchStream> WatchNodes() override { return nullptr; }
  absl::StatusOr<tidepool::v1::UpdateNodeResponse> UpdateNode(
      const tidepool::v1::UpdateNodeRequest& request) override {
    updates.push_back(request);
    tidepool::v1::UpdateNodeResponse response;
    response.mutable_node()->set_name(request.name());
    response.mutable_node()->set_reason(request.reason());
    return response;
  }
  // Reports every name asked for missing unless `nodes_reply` says otherwise.
  absl::StatusOr<tidepool::v1::GetNodesResponse> GetNodes(
      const tidepool::v1::GetNodesRequest& request) override {
    if (nodes_reply.has_value()) return *nodes_reply;
    tidepool::v1::GetNodesResponse response;
    for (const std::string& name : request.names()) response.add_missing(name);
    return response;
  }
  absl::Status Reconfigure(const tidepool::v1::ReconfigureRequest&) override {
    return absl::OkStatus();
  }

  std::vector<tidepool::v1::UpdateNodeRequest> updates;
  std::optional<absl::StatusOr<tidepool::v1::GetNodesResponse>> nodes_reply;
};

TEST_CASE("SyncerSlurmSource without a syncer address is unreachable and says why") {
  common::FakeClock clock;
  SyncerSlurmSource source("", common::ChannelOptions{}, absl::Seconds(1), &clock,
                           [](const auto&, bool) {});
  const SlurmView view = source.View({"n-01"});
  CHECK_FALSE(view.reachable);
  CHECK(view.unreachable_reason == "no --syncer_address");
  CHECK(absl::IsUnavailable(source.Drain("hpc/research", "n-01", "k8s: scale-in").status()));
}

TEST_CASE("SyncerSlurmSource drains through the SyncerClient and keeps the reply") {
  common::FakeClock clock;
  auto syncer = std::make_unique<FakeSyncer>();
  FakeSyncer* calls = syncer.get();
  SyncerSlurmSource source(std::move(syncer), "syncer:50062", &clock, [](const auto&, bool) {});

  absl::StatusOr<SlurmNode> drained = source.Drain("hpc/research", "n-01", "k8s: scale-in");
  REQUIRE(drained.ok());
  REQUIRE(calls->updates.size() == 1);
  CHECK(calls->updates[0].action() == tidepool::v1::UpdateNodeRequest::DRAIN);
  CHECK(calls->updates[0].reason() == "k8s: scale-in");
  // The next sync sees the drain before the watch brings it.
  const SlurmView view = source.View({"n-01"});
  REQUIRE(view.Find("n-01") != nullptr);
  CHECK(view.Find("n-01")->reason() == "k8s: scale-in");
}

TEST_CASE("SyncerSlurmSource reads a node Slurm does not list as none") {
  common::FakeClock clock;
  SyncerSlurmSource source(std::make_unique<FakeSyncer>(), "syncer:50062", &clock,
                           [](const auto&, bool) {});
  absl::StatusOr<std::optional<SlurmNode>> fresh = source.Fresh("hpc/research", "n-09");
  REQUIRE(fresh.ok());
  CHECK_FALSE(fresh->has_value());
}

// "Not in Slurm" lets a pod be deleted without a drain: only a list proves it.
TEST_CASE("SyncerSlurmSource takes no failure for a node's absence, NOT_FOUND included") {
  common::FakeClock clock;
  auto syncer = std::make_unique<FakeSyncer>();
  FakeSyncer* fake = syncer.get();
  SyncerSlurmSource source(std::move(syncer), "syncer:50062", &clock, [](const auto&, bool) {});

  fake->nodes_reply = absl::NotFoundError("GET /slurm/v0.0.45/nodes/ (HTTP 404)");
  absl::StatusOr<std::optional<SlurmNode>> fresh = source.Fresh("hpc/research", "n-09");
  CHECK(absl::IsNotFound(fresh.status()));

  // An answer that neither lists nor reports the node proves nothing either.
  fake->nodes_reply = tidepool::v1::GetNodesResponse();
  fresh = source.Fresh("hpc/research", "n-09");
  CHECK(absl::IsInternal(fresh.status()));
  CHECK(absl::StrContains(fresh.status().message(), "n-09"));

  tidepool::v1::GetNodesResponse listed;
  listed.add_nodes()->set_name("n-09");
  fake->nodes_reply = listed;
  fresh = source.Fresh("hpc/research", "n-09");
  REQUIRE(fresh.ok());
  REQUIRE(fresh->has_value());
  CHECK((*fresh)->name() == "n-09");
}

}  // namespace
}  // namespace tidepool::nodeset
