#pragma once

// The status of a SlurmCluster while its teardown runs (pure): Ready False, reason
// Terminating, the message naming what the teardown waits for; every other condition
// stays as the last sync wrote it (the steps that keep them no longer run).

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "status.h"

namespace tidepool::cluster {

// "waiting for <waiting_for>".
k8s::Condition TerminatingCondition(absl::string_view waiting_for, int64_t generation);

// A merge patch of the status subresource with `ready` in place of the current Ready
// condition; "" when the status already says it.
std::string TeardownStatusPatch(const ClusterStatusView& current, const k8s::Condition& ready,
                                absl::Time now);

}  // namespace tidepool::cluster
