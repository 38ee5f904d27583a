#include "k8s/leader_election.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "k8s/errors.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"

namespace tidepool::k8s {
namespace {

// client-go's JitterFactor: each wait is retry_period * (1 + U[0, 1.2)).
constexpr double kJitterFactor = 1.2;
// How often a sleeping elector looks at its stop token.
constexpr absl::Duration kStopCheckInterval = absl::Milliseconds(50);

std::optional<absl::Time> OptionalTime(const rapidjson::Value& spec, const char* key) {
  const std::string text = StringMember(spec, key);
  if (text.empty()) return std::nullopt;
  absl::StatusOr<absl::Time> time = ParseApiTime(text);
  if (!time.ok()) return std::nullopt;
  return *time;
}

rapidjson::Value SpecValue(const LeaseRecord& record,
                           rapidjson::Document::AllocatorType& allocator) {
  rapidjson::Value spec(rapidjson::kObjectType);
  SetStringMember(spec, "holderIdentity", record.holder_identity, allocator);
  spec.AddMember("leaseDurationSeconds", record.lease_duration_seconds, allocator);
  if (record.acquire_time) {
    SetStringMember(spec, "acquireTime", FormatMicroTime(*record.acquire_time), allocator);
  }
  if (record.renew_time) {
    SetStringMember(spec, "renewTime", FormatMicroTime(*record.renew_time), allocator);
  }
  spec.AddMember("leaseTransitions", record.lease_transitions, allocator);
  return spec;
}

}  // namespace

absl::StatusOr<LeaseObject> ParseLease(absl::string_view json) {
  absl::StatusOr<rapidjson::Document> doc = ParseJsonObject(json, "Lease");
  if (!doc.ok()) return doc.status();
  LeaseObject lease;
  lease.json = std::string(json);
  if (const rapidjson::Value* metadata = FindMember(*doc, "metadata")) {
    lease.resource_version = StringMember(*metadata, "resourceVersion");
  }
  if (const rapidjson::Value* spec = FindMember(*doc, "spec")) {
    lease.record.holder_identity = StringMember(*spec, "holderIdentity");
    lease.record.lease_duration_seconds = IntMember(*spec, "leaseDurationSeconds");
    lease.record.acquire_time = OptionalTime(*spec, "acquireTime");
    lease.record.renew_time = OptionalTime(*spec, "renewTime");
    lease.record.lease_transitions = IntMember(*spec, "leaseTransitions");
  }
  return lease;
}

absl::StatusOr<std::string> LeaseWithRecord(absl::string_view lease_json,
                                            const LeaseRecord& record) {
  absl::StatusOr<rapidjson::Document> doc = ParseJsonObject(lease_json, "Lease");
  if (!doc.ok()) return doc.status();
  SetMember(*doc, "spec", SpecValue(record, doc->GetAllocator()), doc->GetAllocator());
  return ToJson(*doc);
}

std::string NewLeaseJson(absl::string_view ns, absl::string_view name, const LeaseRecord& record) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& allocator = doc.GetAllocator();
  doc.AddMember("apiVersion", "coordination.k8s.io/v1", allocator);
  doc.AddMember("kind", "Lease", allocator);
  rapidjson::Value& metadata = ObjectMember(doc, "metadata", allocator);
  SetStringMember(metadata, "name", name, allocator);
  SetStringMember(metadata, "namespace", ns, allocator);
  doc.AddMember("spec", SpecValue(record, allocator), allocator);
  return ToJson(doc);
}

void ObserveLease(const LeaseRecord& current, absl::Time now, LeaseObservation& observation) {
  if (observation.record == current) return;
  observation.record = current;
  observation.changed_at = now;
}

bool HeldByAnother(const LeaseObservation& observation, absl::string_view identity,
                   absl::Time now) {
  if (!observation.record) return false;
  const LeaseRecord& record = *observation.record;
  if (record.holder_identity.empty() || record.holder_identity == identity) return false;
  return observation.changed_at + absl::Seconds(record.lease_duration_seconds) > now;
}

LeaseDecision DecideLeaseAction(const std::optional<LeaseRecord>& current,
                                const LeaseObservation& observation, absl::string_view identity,
                                absl::Duration lease_duration, absl::Time now) {
  LeaseDecision decision;
  decision.record.holder_identity = std::string(identity);
  decision.record.lease_duration_seconds = absl::ToInt64Seconds(lease_duration);
  decision.record.acquire_time = now;
  decision.record.renew_time = now;
  if (!current) {
    decision.action = LeaseAction::kCreate;
    return decision;
  }
  if (HeldByAnother(observation, identity, now)) {
    decision.action = LeaseAction::kWait;
    return decision;
  }
  decision.action = LeaseAction::kUpdate;
  if (current->holder_identity == identity) {
    // A renewal: the term started at the original acquisition.
    decision.record.acquire_time = current->acquire_time;
    decision.record.lease_transitions = current->lease_transitions;
  } else {
    decision.record.lease_transitions = current->lease_transitions + 1;
  }
  return decision;
}

LeaseRecord ReleasedRecord(const LeaseRecord& held, absl::Time now) {
  // As client-go: no holder, and a one-second duration so that even a candidate that
  // ignored the empty holder would wait at most a second.
  LeaseRecord released;
  released.lease_duration_seconds = 1;
  released.acquire_time = now;
  released.renew_time = now;
  released.lease_transitions = held.lease_transitions;
  return released;
}

absl::Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config) {
  if (config.lease_namespace.empty() || config.lease_name.empty()) {
    return absl::InvalidArgumentError("leader election: the Lease namespace and name are required");
  }
  if (config.identity.empty()) {
    return absl::InvalidArgumentError("leader election: an identity is required");
  }
  if (config.retry_period <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("leader election: retry period must be positive");
  }
  if (config.renew_deadline <= config.retry_period * kJitterFactor) {
    return absl::InvalidArgumentError(absl::StrCat(
        "leader election: renew deadline (", absl::FormatDuration(config.renew_deadline),
        ") must exceed 1.2 x retry period (", absl::FormatDuration(config.retry_period), ")"));
  }
  if (config.lease_duration <= config.renew_deadline) {
    return absl::InvalidArgumentError(absl::StrCat(
        "leader election: lease duration (", absl::FormatDuration(config.lease_duration),
        ") must exceed the renew deadline (", absl::FormatDuration(config.renew_deadline), ")"));
  }
  if (config.lease_duration < absl::Seconds(1)) {
    return absl::InvalidArgumentError("leader election: lease duration must be at least 1s");
  }
  return absl::OkStatus();
}

namespace {

class ApiLeases : public LeaseClient {
 public:
  explicit ApiLeases(Client& client) : client_(client) {}
  absl::StatusOr<std::string> Get(const std::string& ns, const std::string& name,
                                  absl::Duration timeout) override {
    return client_.Get(Leases(), ns, name, timeout);
  }
  absl::StatusOr<std::string> Create(const std::string& ns, const std::string& json,
                                     absl::Duration timeout) override {
    return client_.Create(Leases(), ns, json, {.timeout = timeout});
  }
  absl::StatusOr<std::string> Update(const std::string& ns, const std::string& name,
                                     const std::string& json, absl::Duration timeout) override {
    return client_.Update(Leases(), ns, name, json, {.timeout = timeout});
  }

 private:
  Client& client_;
};

}  // namespace

std::unique_ptr<LeaseClient> ApiLeaseClient(Client& client) {
  return std::make_unique<ApiLeases>(client);
}

LeaderElector::LeaderElector(Client& client, LeaderElectionConfig config, common::Clock* clock,
                             uint32_t seed)
    : owned_leases_(ApiLeaseClient(client)),
      leases_(*owned_leases_),
      config_(std::move(config)),
      clock_(clock),
      random_(seed) {}

LeaderElector::LeaderElector(LeaseClient& leases, LeaderElectionConfig config, common::Clock* clock,
                             uint32_t seed)
    : leases_(leases), config_(std::move(config)), clock_(clock), random_(seed) {}

void LeaderElector::ReportError(const absl::Status& status) {
  if (config_.on_error) config_.on_error(status);
}

bool LeaderElector::IsLeader() {
  // Not the last record seen: that still names us after renewals failed.
  absl::MutexLock lock(&mutex_);
  return leading_;
}

void LeaderElector::SetLeading(bool leading) {
  absl::MutexLock lock(&mutex_);
  leading_ = leading;
}

std::string LeaderElector::LeaderIdentity() {
  absl::MutexLock lock(&mutex_);
  return observation_.record ? observation_.record->holder_identity : "";
}

void LeaderElector::ReportLeader(const std::string& holder) {
  {
    absl::MutexLock lock(&mutex_);
    if (holder == reported_leader_) return;
    reported_leader_ = holder;
  }
  if (!holder.empty() && config_.callbacks.on_new_leader) config_.callbacks.on_new_leader(holder);
}

absl::StatusOr<bool> LeaderElector::WriteDecision(const std::optional<LeaseObject>& current,
                                                  const LeaseDecision& decision,
                                                  absl::Duration timeout) {
  absl::StatusOr<std::string> written;
  if (decision.action == LeaseAction::kCreate) {
    written = leases_.Create(
        config_.lease_namespace,
        NewLeaseJson(config_.lease_namespace, config_.lease_name, decision.record), timeout);
  } else {
    absl::StatusOr<std::string> body = LeaseWithRecord(current->json, decision.record);
    if (!body.ok()) return body.status();
    written = leases_.Update(config_.lease_namespace, config_.lease_name, *body, timeout);
  }
  if (!written.ok()) return written.status();
  absl::StatusOr<LeaseObject> lease = ParseLease(*written);
  if (!lease.ok()) return lease.status();
  absl::MutexLock lock(&mutex_);
  ObserveLease(lease->record, clock_->Now(), observation_);
  last_lease_json_ = lease->json;
  return true;
}

bool LeaderElector::TryAcquireOrRenew(absl::Duration budget) {
  // A leader whose requests hang must still give up within the renew deadline, before its
  // lease can expire for the others: the round's requests share one time budget.
  if (budget <= absl::ZeroDuration()) budget = config_.renew_deadline;
  const absl::Time give_up = clock_->Now() + budget;
  absl::StatusOr<std::string> got =
      leases_.Get(config_.lease_namespace, config_.lease_name, budget);
  std::optional<LeaseObject> current;
  if (got.ok()) {
    absl::StatusOr<LeaseObject> lease = ParseLease(*got);
    if (!lease.ok()) {
      ReportError(lease.status());
      return false;
    }
    current = *std::move(lease);
  } else if (!absl::IsNotFound(got.status())) {
    ReportError(got.status());
    return false;
  }

  const absl::Time now = clock_->Now();
  LeaseDecision decision;
  {
    absl::MutexLock lock(&mutex_);
    if (current) ObserveLease(current->record, now, observation_);
    decision =
        DecideLeaseAction(current ? std::optional<LeaseRecord>(current->record) : std::nullopt,
                          observation_, config_.identity, config_.lease_duration, now);
  }
  if (current) ReportLeader(current->record.holder_identity);
  if (decision.action == LeaseAction::kWait) return false;

  absl::StatusOr<bool> written = WriteDecision(current, decision, Remaining(give_up));
  if (!written.ok()) {
    // 409 (someone else wrote first) and AlreadyExists are lost races: next period.
    ReportError(written.status());
    return false;
  }
  ReportLeader(config_.identity);
  return true;
}

bool LeaderElector::Release() {
  std::optional<LeaseObject> held;
  {
    absl::MutexLock lock(&mutex_);
    if (!observation_.record || observation_.record->holder_identity != config_.identity) {
      return true;
    }
    // Written over our own last write: if anyone wrote since, the 409 leaves theirs alone.
    held = LeaseObject{.record = *observation_.record, .json = last_lease_json_};
  }
  const LeaseDecision release{.action = LeaseAction::kUpdate,
                              .record = ReleasedRecord(held->record, clock_->Now())};
  absl::StatusOr<bool> written = WriteDecision(held, release, config_.renew_deadline);
  if (!written.ok()) {
    ReportError(written.status());
    return false;
  }
  return true;
}

absl::Duration LeaderElector::Jittered(absl::Duration period) {
  std::uniform_real_distribution<double> jitter(0.0, kJitterFactor);
  return period * (1.0 + jitter(random_));
}

bool LeaderElector::SleepUnlessStopped(absl::Duration duration, std::stop_token stop) {
  const absl::Time until = clock_->Now() + duration;
  while (!stop.stop_requested()) {
    const absl::Duration left = until - clock_->Now();
    if (left <= absl::ZeroDuration()) return true;
    clock_->SleepFor(std::min(left, kStopCheckInterval));
  }
  return false;
}

absl::Time LeaderElector::Acquire(std::stop_token stop) {
  while (!stop.stop_requested()) {
    const absl::Time started = clock_->Now();
    if (TryAcquireOrRenew()) return started;
    if (!SleepUnlessStopped(Jittered(config_.retry_period), stop)) break;
  }
  return absl::InfinitePast();
}

absl::Duration LeaderElector::Remaining(absl::Time deadline) {
  // At least a millisecond: a zero timeout would mean the client's default.
  return std::max(deadline - clock_->Now(), absl::Milliseconds(1));
}

void LeaderElector::Renew(std::stop_token stop, absl::Time renewed_at) {
  // The others count the lease from when they saw our last write change it, which is no
  // earlier than when we sent it: giving up renew_deadline after sending the last write
  // that succeeded stops the work before the lease can expire for them.
  while (true) {
    const absl::Time deadline = renewed_at + config_.renew_deadline;
    const absl::Duration left = deadline - clock_->Now();
    if (left <= absl::ZeroDuration()) return;
    if (!SleepUnlessStopped(std::min(config_.retry_period, left), stop)) return;
    if (clock_->Now() >= deadline) return;
    const absl::Time attempt = clock_->Now();
    if (TryAcquireOrRenew(Remaining(deadline))) {
      renewed_at = attempt;
      continue;
    }
    // Someone else holds it now (we were too slow, or it was taken from us): stop at once.
    const std::string holder = LeaderIdentity();
    if (!holder.empty() && holder != config_.identity) return;
  }
}

absl::Status LeaderElector::Run(std::stop_token stop) {
  if (absl::Status valid = ValidateLeaderElectionConfig(config_); !valid.ok()) return valid;
  const absl::Time acquired_at = Acquire(stop);
  if (acquired_at == absl::InfinitePast()) return absl::OkStatus();  // stopped first
  SetLeading(true);
  if (config_.callbacks.on_started_leading) config_.callbacks.on_started_leading();
  Renew(stop, acquired_at);
  // Stop the leader's work first, then release: the next leader must not overlap with it.
  SetLeading(false);
  if (config_.callbacks.on_stopped_leading) config_.callbacks.on_stopped_leading();
  if (stop.stop_requested() && config_.release_on_cancel) Release();
  return absl::OkStatus();
}

}  // namespace tidepool::k8s
