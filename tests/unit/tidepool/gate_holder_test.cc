#include "tidepool/gate_holder.h"

#include <catch2/catch_test_macros.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "tidepool/contract.h"

namespace tidepool::api {
namespace {

std::map<std::string, k8s::Condition> Gate(const std::string& status) {
  if (status.empty()) return {};
  return {{kSlurmNodeInUseCondition,
           {.type = kSlurmNodeInUseCondition, .status = status, .reason = "DrainedIdle"}}};
}

// A pod as an informer with parse_view = PodViewForCache and keep_viewed_json = false
// caches it: the view only.
k8s::CachedObjectPtr Viewed(const std::string& name, const std::string& gate,
                            const std::string& node_set = "gpu") {
  PodView pod{.ns = "hpc", .name = name, .node_set = node_set, .conditions = Gate(gate)};
  return std::make_shared<const k8s::CachedObject>(
      k8s::CachedObject{.meta = {.ns = "hpc", .name = name}, .view = std::move(pod)});
}

// A pod cached as JSON only (an informer without views).
k8s::CachedObjectPtr Json(const std::string& name, const std::string& gate) {
  return std::make_shared<const k8s::CachedObject>(k8s::CachedObject{
      .meta = {.ns = "hpc", .name = name},
      .json = absl::StrCat(R"({"metadata":{"name":")", name, R"(","namespace":"hpc"},)",
                           R"("status":{"conditions":[{"type":")", kSlurmNodeInUseCondition,
                           R"(","status":")", gate, R"(","reason":"DrainedIdle"}]}})")});
}

std::vector<std::string> Names(const std::vector<GateHoldCandidate>& candidates) {
  std::vector<std::string> names;
  for (const GateHoldCandidate& c : candidates) names.push_back(c.ns + "/" + c.name);
  return names;
}

TEST_CASE("the candidates are the cached pods whose gate is False, as the hold needs them") {
  const std::vector<k8s::CachedObjectPtr> pods = {Viewed("gpu-0", "False"),
                                                  Viewed("gpu-1", "True"),
                                                  Viewed("gpu-2", ""),
                                                  Viewed("gpu-3", "Unknown"),
                                                  Json("gpu-4", "False"),
                                                  Json("gpu-5", "True"),
                                                  nullptr};
  const std::vector<GateHoldCandidate> candidates = GateFalseCandidates(pods);
  CHECK(Names(candidates) == std::vector<std::string>{"hpc/gpu-0", "hpc/gpu-4"});
  REQUIRE(candidates.size() == 2);
  for (const GateHoldCandidate& candidate : candidates) {
    REQUIRE(candidate.conditions.size() == 1);
    CHECK(candidate.conditions.at(kSlurmNodeInUseCondition).status == "False");
    CHECK(candidate.conditions.at(kSlurmNodeInUseCondition).reason == "DrainedIdle");
  }
}

TEST_CASE("a pod the caller does not keep, or that cannot be read, is no candidate") {
  auto unreadable = std::make_shared<const k8s::CachedObject>(
      k8s::CachedObject{.meta = {.ns = "hpc", .name = "bad"}, .json = "not json"});
  const std::vector<k8s::CachedObjectPtr> pods = {Viewed("gpu-0", "False"),
                                                  Viewed("stray", "False", ""), unreadable};
  int asked = 0;
  const std::vector<GateHoldCandidate> candidates =
      GateFalseCandidates(pods, [&](const PodView& pod) {
        ++asked;
        return !pod.node_set.empty();
      });
  CHECK(Names(candidates) == std::vector<std::string>{"hpc/gpu-0"});
  CHECK(asked == 2);  // only pods whose gate is False are put to the caller
}

// A holder whose writes all fail at once: nothing listens at the API server's address.
struct HolderFixture {
  HolderFixture() : client(Config()) {}
  static k8s::ClientConfig Config() {
    k8s::ClientConfig config;
    config.server = "https://127.0.0.1:1";
    config.qps = 0;
    return config;
  }

  GateHolder Holder() {
    return GateHolder(client, &clock,
                      {.should_hold = [this] { return decision; },
                       .on_change = [this](bool holding) { changes.push_back(holding); },
                       .candidates =
                           [this] {
                             ++looks;
                             return pods;
                           },
                       .count_held = [this] { ++held; }},
                      {.name = "test-hold",
                       .key = "k",
                       .cause = kSlurmUnreachableHold,
                       .field_manager = "test",
                       .period = absl::Seconds(2)});
  }

  common::FakeClock clock;
  k8s::Client client;
  std::optional<bool> decision;
  std::vector<bool> changes;
  std::vector<GateHoldCandidate> pods;
  int looks = 0;
  int held = 0;
};

TEST_CASE("the holder holds only while the decision says so, and says when that turns") {
  HolderFixture f;
  GateHolder holder = f.Holder();
  auto look = [&] {
    absl::StatusOr<k8s::ReconcileResult> result = holder.Reconcile("k");
    REQUIRE(result.ok());
    CHECK(result->requeue_after == absl::Seconds(2));
  };
  look();  // cannot tell: nothing decided, nothing held
  CHECK(f.changes.empty());
  CHECK(f.looks == 0);
  f.decision = false;
  look();  // not holding, as before: no news
  CHECK(f.changes.empty());
  f.decision = true;
  look();
  look();
  CHECK(f.changes == std::vector<bool>{true});
  CHECK(f.looks == 2);
  f.decision = std::nullopt;  // an unreadable look changes nothing
  look();
  CHECK(f.changes == std::vector<bool>{true});
  CHECK(f.looks == 2);
  f.decision = false;
  look();
  CHECK(f.changes == std::vector<bool>{true, false});
  CHECK(f.looks == 2);
}

TEST_CASE("a failed hold is counted nothing and tried again at the next look") {
  HolderFixture f;
  GateHolder holder = f.Holder();
  f.pods = {{.ns = "hpc", .name = "gpu-0", .conditions = Gate("False")},
            {.ns = "hpc", .name = "gpu-1", .conditions = Gate("True")}};
  f.decision = true;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<k8s::ReconcileResult> result = holder.Reconcile("k");
    REQUIRE(result.ok());  // never an error of the key: no backoff, the period stands
    CHECK(result->requeue_after == absl::Seconds(2));
  }
  CHECK(f.looks == 2);
  CHECK(f.held == 0);
}

}  // namespace
}  // namespace tidepool::api
