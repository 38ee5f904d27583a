#pragma once

// The one leadership model of every Tidepool service: the controllers (k8s/controller.h)
// run only while this replica holds the Lease. A LeaderElector campaigns on a thread of
// its own (again after losing); gaining the lease starts the controllers' workers (each
// queues every key once its caches synced), and losing it, or failing to renew within the
// renew deadline, stops them and waits for the reconciles in flight before the elector
// goes on, so they have stopped before the lease can pass to another replica. A stop
// (shutdown) stops the workers first and then releases the lease. Without election
// (disabled) the controllers run from Start to Stop.

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"
#include "k8s/controller.h"
#include "k8s/leader_election.h"
#include "prometheus/gauge.h"

namespace tidepool::k8s {

struct LeadershipOptions {
  bool enabled = true;
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // "" = DefaultIdentity()
  // Durations as LeaderElectionConfig (its defaults when zero).
  absl::Duration lease_duration = absl::ZeroDuration();
  absl::Duration renew_deadline = absl::ZeroDuration();
  absl::Duration retry_period = absl::ZeroDuration();
  // After the controllers started / stopped (metrics, logs); return promptly.
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
  // Set to 1 while leading and 0 otherwise (common::RegisterLeaderGauge); may be null.
  prometheus::Gauge* leader_gauge = nullptr;
};

class Leadership {
 public:
  // `leases`, `clock` and the controllers outlive this object.
  Leadership(LeaseClient& leases, common::Clock* clock, LeadershipOptions options,
             std::vector<Controller*> controllers);
  ~Leadership() { Stop(); }
  Leadership(const Leadership&) = delete;
  Leadership& operator=(const Leadership&) = delete;

  // InvalidArgument for an impossible election config (checked before anything starts).
  absl::Status Start();
  // Stops the controllers, then releases the lease (if held) and stops campaigning.
  void Stop();
  // True while the controllers run (always after Start without election).
  bool IsLeader();
  const std::string& identity() const { return identity_; }

 private:
  void StartControllers();
  void StopControllers();
  LeaderElectionConfig ElectionConfig();

  LeaseClient& leases_;
  common::Clock* const clock_;
  const LeadershipOptions options_;
  const std::string identity_;
  const std::vector<Controller*> controllers_;
  std::unique_ptr<LeaderElector> elector_;
  std::jthread thread_;
  std::atomic<bool> started_without_election_ = false;
};

// This replica's name in its Lease and Events: $POD_NAME in a cluster, else
// "<hostname>_<pid>" (unique per process on a cluster's nodes).
std::string DefaultIdentity();

}  // namespace tidepool::k8s
