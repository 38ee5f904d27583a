#include "config_builders.h"

#include <algorithm>

#include "k8s/object_json.h"
#include "manifest_writing.h"
#include "owned_metadata.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"
#include "tidepool/resources.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

}  // namespace

std::string ConfigMapApplyBody(const v1::SlurmCluster& cluster, const v1::RenderResponse& rendered,
                               absl::Time written_at) {
  const v1::ObjectMeta& meta = cluster.metadata();
  return JsonObject([&](JsonWriter& w) {
    WriteTypeMeta(w, "v1", "ConfigMap");
    WriteOwnedMetadata(w, cluster, api::SlurmConfigMapName(meta.name()), api::kSlurmConfigComponent,
                       Ownership::kOwnedByCluster,
                       {{api::kConfigHashAnnotation, rendered.config_hash()},
                        {api::kConfigWrittenAtAnnotation, k8s::FormatMicroTime(written_at)}});
    w.Key("data");
    w.StartObject();
    for (const v1::RenderedFile& file : rendered.files()) {
      k8s::WriteStringMember(w, file.name(), file.content());
    }
    w.EndObject();
  });
}

std::string ConfigHashAnnotationPatch(absl::string_view hash) {
  return k8s::AnnotationMergePatch(api::kConfigHashAnnotation, hash);
}

std::string ConfigMapHash(absl::string_view config_map_json) {
  return k8s::AnnotationOf(config_map_json, api::kConfigHashAnnotation);
}

std::optional<absl::Time> ConfigMapWrittenAt(absl::string_view config_map_json) {
  const std::string text = k8s::AnnotationOf(config_map_json, api::kConfigWrittenAtAnnotation);
  if (text.empty()) return std::nullopt;
  absl::StatusOr<absl::Time> time = k8s::ParseApiTime(text);
  if (!time.ok()) return std::nullopt;
  return *time;
}

absl::Duration WaitLeft(std::optional<absl::Time> since, absl::Duration delay, absl::Time now) {
  if (!since.has_value()) return absl::ZeroDuration();
  // A written-at time in the future (another replica's clock ahead, an edited annotation)
  // waits no longer than the delay itself.
  return std::min(*since + delay - now, delay);
}

}  // namespace tidepool::cluster
