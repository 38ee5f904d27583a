#pragma once

// What the pod-scheduler reads of a pod it may place, parsed once from its JSON when the
// informer stores it.

#include <any>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "k8s/informer.h"
#include "pod_requests.h"
#include "tidepool/pod_view.h"

namespace tidepool::podsched {

struct ScheduledPod {
  api::PodView pod;            // metadata, nodeName, phase, annotations, conditions
  std::string scheduler_name;  // spec.schedulerName
  absl::Time created = absl::InfinitePast();
  // The pod's effective requests, or why they cannot be read (then no job is made).
  absl::StatusOr<PodRequests> requests = PodRequests{};

  // Succeeded or Failed: its containers will not run again.
  bool Finished() const { return pod.phase == "Succeeded" || pod.phase == "Failed"; }
};

absl::StatusOr<ScheduledPod> ParseScheduledPod(absl::string_view json);
// For k8s::InformerOptions::parse_view.
std::any ScheduledPodForCache(absl::string_view json);
absl::StatusOr<ScheduledPod> ScheduledPodOf(const k8s::CachedObject& object);

}  // namespace tidepool::podsched
