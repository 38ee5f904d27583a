#include "k8s/leader_gate.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace tidepool::k8s {

std::string DefaultIdentity() {
  if (const char* pod = std::getenv("POD_NAME"); pod != nullptr && *pod != '\0') return pod;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return absl::StrCat(host, "_", getpid());
}

LeaderGate::LeaderGate(Client& client, LeaderGateOptions options)
    : client_(client), options_(std::move(options)) {}

LeaderGate::~LeaderGate() { Stop(); }

void LeaderGate::Start() {
  if (!options_.enabled) {
    if (options_.on_started_leading) options_.on_started_leading();
    return;
  }
  LeaderElectionConfig config{
      .lease_namespace = options_.lease_namespace,
      .lease_name = options_.lease_name,
      .identity = options_.identity.empty() ? DefaultIdentity() : options_.identity,
      .callbacks = {.on_started_leading = options_.on_started_leading},
      .on_error = [name = options_.lease_name](const absl::Status& status) {
        std::fprintf(stderr, "leader election %s: %s\n", name.c_str(), status.ToString().c_str());
      }};
  elector_ = std::make_unique<LeaderElector>(client_, std::move(config));
  thread_ = std::jthread([this](std::stop_token stop) {
    while (!stop.stop_requested()) {
      if (!elector_->Run(stop).ok()) return;  // invalid config: checked before Start
    }
  });
}

void LeaderGate::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

bool LeaderGate::IsLeader() { return !options_.enabled || (elector_ && elector_->IsLeader()); }

}  // namespace tidepool::k8s
