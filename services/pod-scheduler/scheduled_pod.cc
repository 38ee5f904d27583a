#include "scheduled_pod.h"

#include <utility>

#include "k8s/object_json.h"

namespace tidepool::podsched {

absl::StatusOr<ScheduledPod> ParseScheduledPod(absl::string_view json) {
  absl::StatusOr<api::PodView> view = api::ParsePodView(json);
  if (!view.ok()) return view.status();
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(json, "Pod");
  if (!doc.ok()) return doc.status();
  ScheduledPod out{.pod = *std::move(view)};
  if (const rapidjson::Value* metadata = k8s::FindMember(*doc, "metadata")) {
    absl::StatusOr<absl::Time> created =
        k8s::ParseApiTime(k8s::StringMember(*metadata, "creationTimestamp"));
    if (created.ok()) out.created = *created;
  }
  const rapidjson::Value* spec = k8s::FindMember(*doc, "spec");
  if (spec == nullptr || !spec->IsObject()) {
    out.requests = absl::InvalidArgumentError("the pod has no spec");
    return out;
  }
  out.scheduler_name = k8s::StringMember(*spec, "schedulerName");
  out.requests = EffectiveRequests(*spec);
  return out;
}

std::any ScheduledPodForCache(absl::string_view json) {
  absl::StatusOr<ScheduledPod> pod = ParseScheduledPod(json);
  if (!pod.ok()) return {};
  return *std::move(pod);
}

absl::StatusOr<ScheduledPod> ScheduledPodOf(const k8s::CachedObject& object) {
  if (const ScheduledPod* view = object.ViewAs<ScheduledPod>()) return *view;
  return ParseScheduledPod(object.json);
}

}  // namespace tidepool::podsched
