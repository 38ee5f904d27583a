#include "node_poller.h"

#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/time/clock.h"
#include "common/log.h"
#include "common/metrics.h"

namespace tidepool::syncer {
namespace {

constexpr char kService[] = "slurm-syncer";
using slurm::rest::Node;
using slurm::rest::NodeList;
using slurm::rest::NodeState;

constexpr NodeState kBaseStates[] = {NodeState::kUnknown,   NodeState::kDown,  NodeState::kIdle,
                                     NodeState::kAllocated, NodeState::kError, NodeState::kMixed,
                                     NodeState::kFuture};

std::string StateLabel(NodeState state) {
  return absl::AsciiStrToLower(slurm::rest::NodeStateName(state));
}

}  // namespace

absl::Time IncrementalSince(absl::Time last_update, absl::Time fetch_started) {
  if (absl::ToUnixSeconds(fetch_started) <= absl::ToUnixSeconds(last_update)) {
    return last_update - absl::Seconds(1);
  }
  return last_update;
}

struct NodePoller::Metrics {
  explicit Metrics(prometheus::Registry& registry)
      : polls(prometheus::BuildCounter()
                  .Name(common::MetricName(kService, "node_polls_total"))
                  .Help("Node polls of slurmrestd by result (changed, unchanged, error)")
                  .Register(registry)),
        duration(
            prometheus::BuildHistogram()
                .Name(common::MetricName(kService, "node_poll_duration_seconds"))
                .Help("Time of one node poll: request, parse and diff")
                .Register(registry)
                .Add({}, prometheus::Histogram::BucketBoundaries{0.001, 0.0025, 0.005, 0.01, 0.025,
                                                                 0.05, 0.1, 0.25, 0.5, 1, 5})),
        nodes(prometheus::BuildGauge()
                  .Name(common::MetricName(kService, "nodes"))
                  .Help("Slurm nodes by base state, as last polled")
                  .Register(registry)),
        drain(prometheus::BuildGauge()
                  .Name(common::MetricName(kService, "nodes_drain"))
                  .Help("Slurm nodes with the DRAIN flag (draining or drained)")
                  .Register(registry)
                  .Add({})),
        reachable(prometheus::BuildGauge()
                      .Name(common::MetricName(kService, "slurm_reachable"))
                      .Help("1 while the last node poll reached Slurm, else 0")
                      .Register(registry)
                      .Add({})) {
    common::AddZeroSeries(polls, {{"result", {"changed", "unchanged", "error"}}});
  }

  void CountStates(const std::vector<Node>& nodes) {
    std::map<NodeState, int> by_state;
    int drained = 0;
    for (const Node& node : nodes) {
      for (NodeState base : kBaseStates) {
        if (node.state.Has(base)) ++by_state[base];
      }
      if (node.state.Has(NodeState::kDrain)) ++drained;
    }
    for (NodeState base : kBaseStates) {
      this->nodes.Add({{"state", StateLabel(base)}}).Set(by_state[base]);
    }
    drain.Set(drained);
  }

  prometheus::Family<prometheus::Counter>& polls;
  prometheus::Histogram& duration;
  prometheus::Family<prometheus::Gauge>& nodes;
  prometheus::Gauge& drain;
  prometheus::Gauge& reachable;
};

NodePoller::NodePoller(SlurmGateway& slurm, NodeFeed& feed, NodePollerOptions options,
                       prometheus::Registry& registry)
    : slurm_(slurm),
      feed_(feed),
      options_(options),
      metrics_(std::make_unique<Metrics>(registry)) {}

NodePoller::~NodePoller() { Stop(); }

void NodePoller::Start() {
  worker_ = std::make_unique<common::PeriodicWorker>(options_.interval, [this] { PollOnce(); });
}

void NodePoller::Stop() { worker_.reset(); }

void NodePoller::Wake() {
  if (worker_ != nullptr) worker_->Wake();
}

bool NodePoller::FullListDue(absl::Time now) const {
  return !feed_.Current().ok() || now - last_full_list_ >= options_.full_resync_interval;
}

void NodePoller::PollOnce() {
  const absl::Time started = absl::Now();
  const bool full = FullListDue(started);
  absl::StatusOr<NodeList> list =
      full ? slurm_.GetNodes()
           : slurm_.GetNodesSince(IncrementalSince(last_update_, last_fetch_started_));
  if (!list.ok()) {
    metrics_->polls.Add({{"result", "error"}}).Increment();
    metrics_->reachable.Set(0);
    if (!feed_.unavailable_reason().has_value()) {
      common::LogWarn("slurm_unreachable",
                      {{"error", list.status()}, {"action", "watchers told; retrying every poll"}});
    }
    feed_.MarkUnavailable(std::string(list.status().message()), started);
    return;
  }
  metrics_->reachable.Set(1);
  if (full) last_full_list_ = started;
  if (list->unchanged) {
    metrics_->polls.Add({{"result", "unchanged"}}).Increment();
  } else {
    Publish(*std::move(list), started);
  }
  metrics_->duration.Observe(absl::ToDoubleSeconds(absl::Now() - started));
}

void NodePoller::Publish(NodeList list, absl::Time fetch_started) {
  const bool recovering = feed_.unavailable_reason().has_value();
  last_update_ = list.last_update;
  last_fetch_started_ = fetch_started;
  metrics_->CountStates(list.nodes);
  const size_t count = list.nodes.size();
  std::vector<Change<Node>> changes = feed_.Apply(std::move(list.nodes), fetch_started);
  metrics_->polls.Add({{"result", changes.empty() ? "unchanged" : "changed"}}).Increment();
  if (recovering) {
    common::LogInfo("slurm_reachable_again", {{"nodes", static_cast<int64_t>(count)},
                                              {"changes", static_cast<int64_t>(changes.size())}});
  }
  for (const Change<Node>& change : changes) {
    common::LogDebug("slurm_node_changed", {{"node", change.item.name},
                                            {"state", change.item.state.ToString()},
                                            {"reason", change.item.reason}});
  }
}

}  // namespace tidepool::syncer
