#pragma once

// Leader election on a coordination.k8s.io/v1 Lease, with client-go's semantics
// (k8s.io/client-go/tools/leaderelection):
//
// - Every candidate reads the Lease every retry period. A record held by someone else is
//   valid until it has not changed for its leaseDurationSeconds, measured on the local
//   clock from when this candidate last saw it change (never from the renewTime written
//   by another machine, whose clock may differ).
// - A candidate takes an expired or released (empty holderIdentity) lease, or creates a
//   missing one, by writing itself as holder; writes are conditional on the
//   resourceVersion read, so of two racing candidates one wins and the other gets 409
//   and tries again next period. Taking it from another holder counts a leaseTransition.
// - The leader renews (writes renewTime) every retry period; if it cannot renew within
//   the renew deadline, counted from when it sent its last successful renewal, it stops
//   leading (on_stopped_leading returns first), so its work has stopped before the lease
//   can expire for the others (renew deadline < lease duration). A Get that fails or
//   hangs is a renewal that did not happen.
// - On a graceful stop the leader releases the lease (holderIdentity "",
//   leaseDurationSeconds 1), as ReleaseOnCancel does, so another takes over at once.
//
// Policy (what the next write is) is the pure function DecideLeaseAction; LeaderElector
// adds the API calls and the timing.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stop_token>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"

namespace tidepool::k8s {

// A Lease's spec (client-go's LeaderElectionRecord).
struct LeaseRecord {
  std::string holder_identity;
  int64_t lease_duration_seconds = 0;
  std::optional<absl::Time> acquire_time;
  std::optional<absl::Time> renew_time;
  int64_t lease_transitions = 0;

  bool operator==(const LeaseRecord&) const = default;
};

// A Lease as read from the API server.
struct LeaseObject {
  LeaseRecord record;
  std::string resource_version;
  std::string json;  // the whole object, written back with a new spec on update
};

absl::StatusOr<LeaseObject> ParseLease(absl::string_view json);
// `lease_json` with its spec replaced by `record` (other fields, e.g. labels and the
// resourceVersion that makes the update conditional, are kept).
absl::StatusOr<std::string> LeaseWithRecord(absl::string_view lease_json,
                                            const LeaseRecord& record);
// A new Lease object for Create.
std::string NewLeaseJson(absl::string_view ns, absl::string_view name, const LeaseRecord& record);

// What a candidate last saw of the lease, and when (on its own clock) it last changed.
struct LeaseObservation {
  std::optional<LeaseRecord> record;
  absl::Time changed_at = absl::InfinitePast();
};

// Records `current` in `observation`; the time moves only when the record changed, so a
// holder that stopped renewing expires leaseDurationSeconds after its last renewal was
// seen.
void ObserveLease(const LeaseRecord& current, absl::Time now, LeaseObservation& observation);

// True while the observed record names a holder other than `identity` and has changed
// within its lease duration.
bool HeldByAnother(const LeaseObservation& observation, absl::string_view identity, absl::Time now);

enum class LeaseAction {
  kCreate,  // no Lease yet: create it holding it
  kUpdate,  // acquire (expired, released or ours) or renew: write `record`
  kWait,    // another holder's lease is valid: try again next period
};

struct LeaseDecision {
  LeaseAction action = LeaseAction::kWait;
  LeaseRecord record;  // for kCreate and kUpdate
};

// client-go's tryAcquireOrRenew as a pure function. `current` is the Lease on the server
// (nullopt: none), already passed to ObserveLease.
LeaseDecision DecideLeaseAction(const std::optional<LeaseRecord>& current,
                                const LeaseObservation& observation, absl::string_view identity,
                                absl::Duration lease_duration, absl::Time now);

// The record a leader writes to give the lease up (client-go's ReleaseOnCancel).
LeaseRecord ReleasedRecord(const LeaseRecord& held, absl::Time now);

// The Lease calls an elector makes (an interface, so the timing is tested on a fake
// clock without a server). Objects travel as JSON; errors as k8s/errors.h describes.
class LeaseClient {
 public:
  virtual ~LeaseClient() = default;
  virtual absl::StatusOr<std::string> Get(const std::string& ns, const std::string& name,
                                          absl::Duration timeout) = 0;
  virtual absl::StatusOr<std::string> Create(const std::string& ns, const std::string& json,
                                             absl::Duration timeout) = 0;
  virtual absl::StatusOr<std::string> Update(const std::string& ns, const std::string& name,
                                             const std::string& json, absl::Duration timeout) = 0;
};

// Leases through the API server. `client` outlives the result.
std::unique_ptr<LeaseClient> ApiLeaseClient(Client& client);

struct LeaderCallbacks {
  // Called on the elector's thread; they should return promptly (start or stop workers,
  // not run them).
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;                        // only after on_started_leading
  std::function<void(const std::string& identity)> on_new_leader;  // each change seen
};

struct LeaderElectionConfig {
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // unique per candidate (pod name + uid, hostname + pid)
  // Shorter than client-go's 15 s / 10 s so that a killed leader is replaced within 15 s
  // (the architecture's target): a standby takes over at most lease_duration after the
  // last renewal it saw plus one jittered retry, 10 + 2.4 s.
  absl::Duration lease_duration = absl::Seconds(10);
  absl::Duration renew_deadline = absl::Seconds(7);
  absl::Duration retry_period = absl::Seconds(2);
  bool release_on_cancel = true;
  LeaderCallbacks callbacks;
  // Each failed API call (the elector itself keeps trying).
  std::function<void(const absl::Status&)> on_error;
};

// InvalidArgument unless lease_duration > renew_deadline > 1.2 * retry_period > 0 (the
// leader must give up before its lease expires, and a jittered retry must fit in the
// renew deadline) and namespace, name and identity are set.
absl::Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config);

class LeaderElector {
 public:
  // `client` and `clock` outlive the elector; `seed` seeds the retry jitter.
  LeaderElector(Client& client, LeaderElectionConfig config,
                common::Clock* clock = common::RealClock(), uint32_t seed = std::random_device{}());
  LeaderElector(LeaseClient& leases, LeaderElectionConfig config, common::Clock* clock,
                uint32_t seed = std::random_device{}());

  // Campaigns until it leads, then renews until leadership is lost or `stop` is
  // requested; releases the lease on a stop if configured. Returns OK after leading and
  // losing or stopping, the config's error when it is invalid.
  absl::Status Run(std::stop_token stop);

  // True from just before on_started_leading until just before on_stopped_leading.
  bool IsLeader();
  std::string LeaderIdentity();  // the holder last seen ("" when none)

  // One acquire-or-renew round: true when we hold the lease afterwards. Its requests
  // together take at most `budget` (default: the renew deadline).
  bool TryAcquireOrRenew(absl::Duration budget = absl::ZeroDuration());
  // Gives the lease up if we hold it; true when released (or not ours to release).
  bool Release();

 private:
  // When the round that acquired started; InfinitePast when stopped first.
  absl::Time Acquire(std::stop_token stop);
  // Renews until it cannot within the renew deadline (or a stop); `renewed_at` is when the
  // acquiring round started.
  void Renew(std::stop_token stop, absl::Time renewed_at);
  void SetLeading(bool leading);
  absl::StatusOr<bool> WriteDecision(const std::optional<LeaseObject>& current,
                                     const LeaseDecision& decision, absl::Duration timeout);
  void ReportLeader(const std::string& holder);
  absl::Duration Jittered(absl::Duration period);
  absl::Duration Remaining(absl::Time deadline);
  // Sleeps on the clock in short steps, so a stop is seen promptly; false when stopped.
  bool SleepUnlessStopped(absl::Duration duration, std::stop_token stop);
  void ReportError(const absl::Status& status);

  std::unique_ptr<LeaseClient> owned_leases_;  // when built on a Client
  LeaseClient& leases_;
  const LeaderElectionConfig config_;
  common::Clock* const clock_;
  std::mt19937 random_;

  absl::Mutex mutex_;
  LeaseObservation observation_ ABSL_GUARDED_BY(mutex_);
  std::string last_lease_json_ ABSL_GUARDED_BY(mutex_);
  std::string reported_leader_ ABSL_GUARDED_BY(mutex_);
  bool leading_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace tidepool::k8s
