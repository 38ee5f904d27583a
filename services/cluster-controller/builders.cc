#include "builders.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tidepool/naming.h"
#include "tidepool/resources.h"

namespace tidepool::cluster {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void Put(JsonWriter& w, absl::string_view key, absl::string_view value) {
  w.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

std::vector<k8s::Condition> Conditions(const ConfigLoopOutcome& o) {
  k8s::Condition rendered{.type = "ConfigRendered", .observed_generation = o.generation};
  k8s::Condition ready{.type = "Ready", .observed_generation = o.generation};
  if (!o.rendered) {
    rendered = {"ConfigRendered", "False", "RenderFailed", o.render_error, "", o.generation};
    ready = {"Ready", "False",     "RenderFailed", "the configuration cannot be rendered",
             "",      o.generation};
    return {rendered, ready};
  }
  rendered.status = "True";
  rendered.reason = "Rendered";
  rendered.message =
      absl::StrCat(o.nodes, " nodes in ", o.partitions, " partitions, ", o.rendered_hash);
  ready.status = o.applied_hash == o.rendered_hash ? "True" : "False";
  if (ready.status == "True") {
    ready.reason = "ConfigApplied";
    ready.message = absl::StrCat("Slurm was reconfigured with ", o.applied_hash);
  } else if (!o.reconfigure_error.empty()) {
    ready.reason = "ReconfigureFailed";
    ready.message = o.reconfigure_error;
  } else {
    ready.reason = "ConfigPropagating";
    ready.message = absl::StrCat("waiting for ", o.rendered_hash,
                                 " to reach the Slurm controller before reconfiguring");
  }
  return {rendered, ready};
}

}  // namespace

std::string ConfigMapApplyBody(const v1::SlurmCluster& cluster,
                               const v1::RenderResponse& rendered) {
  const v1::ObjectMeta& meta = cluster.metadata();
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  Put(w, "apiVersion", "v1");
  Put(w, "kind", "ConfigMap");
  w.Key("metadata");
  w.StartObject();
  Put(w, "name", api::SlurmConfigMapName(meta.name()));
  Put(w, "namespace", meta.namespace_());
  w.Key("labels");
  w.StartObject();
  Put(w, api::kComponentLabel, api::kSlurmConfigComponent);
  Put(w, api::kClusterLabel, meta.name());
  w.EndObject();
  w.Key("annotations");
  w.StartObject();
  Put(w, api::kConfigHashAnnotation, rendered.config_hash());
  w.EndObject();
  w.Key("ownerReferences");
  w.StartArray();
  w.StartObject();
  Put(w, "apiVersion", api::kApiVersion);
  Put(w, "kind", "SlurmCluster");
  Put(w, "name", meta.name());
  Put(w, "uid", meta.uid());
  w.Key("controller");
  w.Bool(true);
  w.Key("blockOwnerDeletion");
  w.Bool(true);
  w.EndObject();
  w.EndArray();
  w.EndObject();
  w.Key("data");
  w.StartObject();
  for (const v1::RenderedFile& file : rendered.files()) Put(w, file.name(), file.content());
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string StatusPatch(const ConfigLoopOutcome& outcome,
                        const std::map<std::string, k8s::Condition>& current, absl::Time now) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("status");
  w.StartObject();
  w.Key("observedGeneration");
  w.Int64(outcome.generation);
  Put(w, "configHash", outcome.applied_hash);
  if (outcome.rendered) {
    w.Key("nodes");
    w.Int(outcome.nodes);
    w.Key("partitions");
    w.Int(outcome.partitions);
  }
  w.Key("conditions");
  w.StartArray();
  for (const k8s::Condition& c : Conditions(outcome)) {
    w.StartObject();
    Put(w, "type", c.type);
    Put(w, "status", c.status);
    Put(w, "reason", c.reason);
    Put(w, "message", c.message);
    Put(w, "lastTransitionTime", k8s::TransitionTime(current, c, now));
    w.Key("observedGeneration");
    w.Int64(c.observed_generation);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

bool StatusUnchanged(const ConfigLoopOutcome& outcome, const std::string& current_hash,
                     int64_t current_generation,
                     const std::map<std::string, k8s::Condition>& current) {
  if (current_hash != outcome.applied_hash || current_generation != outcome.generation) {
    return false;
  }
  for (const k8s::Condition& c : Conditions(outcome)) {
    if (!k8s::ConditionUnchanged(current, c)) return false;
  }
  return true;
}

}  // namespace tidepool::cluster
