#include "gate_hold.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "tidepool/contract.h"

namespace tidepool::nodeset {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);
constexpr absl::Duration kGrace = absl::Seconds(10);

k8s::LeaseObservation Seen(const std::string& holder, int64_t duration_seconds,
                           absl::Time changed_at) {
  k8s::LeaseObservation observation;
  k8s::ObserveLease({.holder_identity = holder,
                     .lease_duration_seconds = duration_seconds,
                     .renew_time = changed_at},
                    changed_at, observation);
  return observation;
}

TEST_CASE("slurm-syncer is absent once its Lease had no live holder for the grace") {
  SECTION("a holder that renews is there") {
    k8s::LeaseObservation lease = Seen("syncer-0", 15, kT0);
    CHECK_FALSE(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(14)));
  }
  SECTION("a holder that stopped renewing is gone after its lease duration") {
    k8s::LeaseObservation lease = Seen("syncer-0", 15, kT0);
    // The same record seen again later does not count as a renewal.
    k8s::ObserveLease(*lease.record, kT0 + absl::Seconds(12), lease);
    CHECK_FALSE(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(15)));
    CHECK(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(16)));
  }
  SECTION("a released Lease is absent only after the grace: a rollout's handover holds nothing") {
    k8s::LeaseObservation lease = Seen("", 1, kT0);
    CHECK_FALSE(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(9)));
    CHECK(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(10)));
    k8s::ObserveLease({.holder_identity = "syncer-1",
                       .lease_duration_seconds = 15,
                       .renew_time = kT0 + absl::Seconds(11)},
                      kT0 + absl::Seconds(11), lease);
    CHECK_FALSE(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(12)));
  }
  SECTION("a missing Lease is absent from the grace after it was first seen missing") {
    k8s::LeaseObservation lease;
    ObserveMissingLease(kT0, lease);
    ObserveMissingLease(kT0 + absl::Seconds(5), lease);  // no news: the time stays
    CHECK_FALSE(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(9)));
    CHECK(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(10)));
  }
  SECTION("a Lease deleted after being held counts from when it was seen gone") {
    k8s::LeaseObservation lease = Seen("syncer-0", 15, kT0);
    ObserveMissingLease(kT0 + absl::Seconds(3), lease);
    CHECK_FALSE(lease.record.has_value());
    CHECK_FALSE(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(12)));
    CHECK(SyncerAbsent(lease, kGrace, kT0 + absl::Seconds(13)));
  }
}

TEST_CASE("an absent slurm-syncer's cause names what its Lease shows") {
  k8s::LeaseObservation lease;
  ObserveMissingLease(kT0, lease);
  CHECK(SyncerAbsenceCause(lease) == "missing");
  CHECK(SyncerAbsenceCause(Seen("", 1, kT0)) == "released");
  CHECK(SyncerAbsenceCause(Seen("syncer-0", 15, kT0)) == "expired");
}

api::PodView NodeSetPod(const std::string& gate_status) {
  api::PodView pod{.ns = "hpc", .name = "gpu-0", .node_set = "gpu", .controller_uid = "uid-1"};
  if (!gate_status.empty()) {
    pod.conditions[api::kSlurmNodeInUseCondition] = {
        .type = api::kSlurmNodeInUseCondition, .status = gate_status, .reason = "DrainedIdle"};
  }
  return pod;
}

TEST_CASE("only a NodeSet pod's False gate is held True") {
  CHECK(HoldsGateOf(NodeSetPod("False")));
  CHECK_FALSE(HoldsGateOf(NodeSetPod("True")));
  CHECK_FALSE(HoldsGateOf(NodeSetPod("")));  // no gate: Ready anyway
  api::PodView stray = NodeSetPod("False");
  stray.controller_uid.clear();  // labelled as a NodeSet's, owned by none
  CHECK_FALSE(HoldsGateOf(stray));
  api::PodView unlabelled = NodeSetPod("False");
  unlabelled.node_set.clear();
  CHECK_FALSE(HoldsGateOf(unlabelled));
}

}  // namespace
}  // namespace tidepool::nodeset
