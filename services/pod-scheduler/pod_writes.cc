#include "pod_writes.h"

#include "absl/strings/str_cat.h"
#include "k8s/conditions.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {

std::string BindingJson(const api::PodView& pod, const std::string& node) {
  return k8s::JsonObject([&](k8s::JsonWriter& w) {
    k8s::WriteStringMember(w, "apiVersion", "v1");
    k8s::WriteStringMember(w, "kind", "Binding");
    w.Key("metadata");
    w.StartObject();
    k8s::WriteStringMember(w, "name", pod.name);
    k8s::WriteStringMember(w, "namespace", pod.ns);
    k8s::WriteStringMember(w, "uid", pod.uid);
    w.EndObject();
    w.Key("target");
    w.StartObject();
    k8s::WriteStringMember(w, "apiVersion", "v1");
    k8s::WriteStringMember(w, "kind", "Node");
    k8s::WriteStringMember(w, "name", node);
    w.EndObject();
  });
}

std::string JobIdPatchJson(const api::PodView& pod, uint32_t job_id,
                           const std::string& cluster_key) {
  return k8s::JsonObject([&](k8s::JsonWriter& w) {
    w.Key("metadata");
    w.StartObject();
    k8s::WriteStringMember(w, "uid", pod.uid);
    w.Key("annotations");
    w.StartObject();
    k8s::WriteStringMember(w, api::kSlurmJobIdAnnotation, absl::StrCat(job_id));
    k8s::WriteStringMember(w, api::kSlurmClusterAnnotation, cluster_key);
    w.EndObject();
    w.EndObject();
  });
}

std::string UnschedulableStatusJson(const api::PodView& pod, const std::string& reason,
                                    const std::string& message, absl::Time now) {
  return k8s::ConditionsApplyBody("Pod", pod.ns, pod.name,
                                  {{.type = "PodScheduled",
                                    .status = "False",
                                    .reason = reason,
                                    .message = message,
                                    .last_transition_time = k8s::FormatApiTime(now)}});
}

absl::Status BindPod(k8s::Client& client, const api::PodView& pod, const std::string& node) {
  absl::StatusOr<std::string> path = k8s::ResourcePath(k8s::Pods(), pod.ns, pod.name, "binding");
  if (!path.ok()) return path.status();
  return client.Call({.method = "POST", .path = *path, .body = BindingJson(pod, node)}).status();
}

absl::Status AnnotateJobId(k8s::Client& client, const api::PodView& pod, uint32_t job_id,
                           const std::string& cluster_key) {
  return client
      .MergePatch(k8s::Pods(), pod.ns, pod.name, JobIdPatchJson(pod, job_id, cluster_key),
                  {.field_manager = kFieldManager})
      .status();
}

absl::Status MarkUnschedulable(k8s::Client& client, const api::PodView& pod,
                               const std::string& reason, const std::string& message,
                               absl::Time now) {
  return client
      .Apply(k8s::Pods(), pod.ns, pod.name, UnschedulableStatusJson(pod, reason, message, now),
             {.field_manager = kFieldManager, .force = true}, "status")
      .status();
}

absl::Status DeletePod(k8s::Client& client, const api::PodView& pod) {
  absl::Status deleted =
      client.Delete(k8s::Pods(), pod.ns, pod.name, {.precondition_uid = pod.uid}).status();
  if (absl::IsNotFound(deleted)) return absl::OkStatus();
  return deleted;
}

}  // namespace tidepool::podsched
