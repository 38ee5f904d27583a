#include "k8s/leadership.h"

#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/log.h"

namespace tidepool::k8s {

std::string DefaultIdentity() {
  if (const char* pod = std::getenv("POD_NAME"); pod != nullptr && *pod != '\0') return pod;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return absl::StrCat(host, "_", getpid());
}

Leadership::Leadership(LeaseClient& leases, common::Clock* clock, LeadershipOptions options,
                       std::vector<Controller*> controllers)
    : leases_(leases),
      clock_(clock),
      options_(std::move(options)),
      identity_(options_.identity.empty() ? DefaultIdentity() : options_.identity),
      controllers_(std::move(controllers)) {}

void Leadership::StartControllers() {
  for (Controller* controller : controllers_) controller->Start();
  if (options_.leader_gauge != nullptr) options_.leader_gauge->Set(1);
  if (options_.on_started_leading) options_.on_started_leading();
}

void Leadership::StopControllers() {
  for (Controller* controller : controllers_) controller->Stop();
  if (options_.leader_gauge != nullptr) options_.leader_gauge->Set(0);
  if (options_.on_stopped_leading) options_.on_stopped_leading();
}

LeaderElectionConfig Leadership::ElectionConfig() {
  LeaderElectionConfig config{
      .lease_namespace = options_.lease_namespace,
      .lease_name = options_.lease_name,
      .identity = identity_,
      .callbacks = {.on_started_leading =
                        [this] {
                          common::LogInfo("leading", {{"lease", options_.lease_name}});
                          StartControllers();
                        },
                    // Returns once the workers have stopped: the elector releases or lets
                    // the lease lapse only after that.
                    .on_stopped_leading =
                        [this] {
                          common::LogInfo("stopped_leading", {{"lease", options_.lease_name}});
                          StopControllers();
                        },
                    .on_new_leader =
                        [lease = options_.lease_name](const std::string& leader) {
                          common::LogInfo("leader", {{"lease", lease}, {"identity", leader}});
                        }},
      .on_error = [lease = options_.lease_name](const absl::Status& status) {
        common::LogWarn("leader_election_error", {{"lease", lease}, {"error", status}});
      }};
  if (options_.lease_duration > absl::ZeroDuration()) {
    config.lease_duration = options_.lease_duration;
  }
  if (options_.renew_deadline > absl::ZeroDuration()) {
    config.renew_deadline = options_.renew_deadline;
  }
  if (options_.retry_period > absl::ZeroDuration()) config.retry_period = options_.retry_period;
  return config;
}

absl::Status Leadership::Start() {
  if (!options_.enabled) {
    started_without_election_ = true;
    StartControllers();
    return absl::OkStatus();
  }
  LeaderElectionConfig config = ElectionConfig();
  if (absl::Status valid = ValidateLeaderElectionConfig(config); !valid.ok()) return valid;
  elector_ = std::make_unique<LeaderElector>(leases_, std::move(config), clock_);
  thread_ = std::jthread([this](std::stop_token stop) {
    while (!stop.stop_requested()) {
      if (!elector_->Run(stop).ok()) return;  // invalid config: checked above
    }
  });
  return absl::OkStatus();
}

void Leadership::Stop() {
  if (thread_.joinable()) {
    // Run stops the controllers before it releases the lease.
    thread_.request_stop();
    thread_.join();
  }
  if (started_without_election_.exchange(false)) StopControllers();
}

bool Leadership::IsLeader() {
  if (!options_.enabled) return started_without_election_;
  return elector_ != nullptr && elector_->IsLeader();
}

}  // namespace tidepool::k8s
