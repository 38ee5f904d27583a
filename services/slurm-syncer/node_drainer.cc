#include "node_drainer.h"

#include <utility>

#include "common/log.h"

namespace tidepool::syncer {
namespace {

const char* ActionName(const DrainRequest& request) {
  return request.action == DrainRequest::Action::kDrain ? "drain" : "undrain";
}

}  // namespace

absl::StatusOr<DrainOutcome> NodeDrainer::Apply(const DrainRequest& request,
                                                absl::string_view requester, ReadBack read_back) {
  if (absl::Status valid = ValidateDrainRequest(request); !valid.ok()) return valid;
  const common::KeyedMutex::Lock node_lock(node_locks_, request.node);
  absl::StatusOr<slurm::rest::Node> current = slurm_.GetNode(request.node);
  if (!current.ok()) return current.status();
  absl::StatusOr<std::optional<slurm::rest::NodeUpdate>> plan = PlanDrainUpdate(*current, request);
  if (!plan.ok()) {
    common::LogWarn("node_update_refused", {{"node", request.node},
                                            {"action", ActionName(request)},
                                            {"requester", requester},
                                            {"error", plan.status()}});
    return plan.status();
  }
  if (!plan->has_value()) return DrainOutcome{*std::move(current), false};
  if (absl::Status s = slurm_.UpdateNode(request.node, **plan); !s.ok()) return s;
  common::LogInfo("node_updated", {{"node", request.node},
                                   {"action", ActionName(request)},
                                   {"reason", request.reason},
                                   {"previous_reason", current->reason},
                                   {"force", request.force},
                                   {"requester", requester}});
  poller_.Wake();
  if (read_back == ReadBack::kNo) return DrainOutcome{*std::move(current), true};
  absl::StatusOr<slurm::rest::Node> after = slurm_.GetNode(request.node);
  if (!after.ok()) return after.status();
  return DrainOutcome{*std::move(after), true};
}

}  // namespace tidepool::syncer
