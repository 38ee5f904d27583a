#pragma once

// Leader election for a service whose workers always run but only write while leading:
// runs a LeaderElector on a thread of its own (campaigning again after losing), tells
// when leadership starts (so the caller can re-examine everything) and answers
// IsLeader for the workers. Without election (disabled) it always leads.

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "k8s/client.h"
#include "k8s/leader_election.h"

namespace tidepool::k8s {

struct LeaderGateOptions {
  bool enabled = true;
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // "" = hostname_pid
  std::function<void()> on_started_leading;
};

class LeaderGate {
 public:
  LeaderGate(Client& client, LeaderGateOptions options);
  ~LeaderGate();
  LeaderGate(const LeaderGate&) = delete;
  LeaderGate& operator=(const LeaderGate&) = delete;

  void Start();
  // Releases the lease (if held) and stops campaigning.
  void Stop();
  bool IsLeader();

 private:
  Client& client_;
  LeaderGateOptions options_;
  std::unique_ptr<LeaderElector> elector_;
  std::jthread thread_;
};

// This replica's name in its Lease and Events: $POD_NAME in a cluster, else
// "<hostname>_<pid>" (unique per process on a cluster's nodes).
std::string DefaultIdentity();

}  // namespace tidepool::k8s
