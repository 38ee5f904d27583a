#include "status.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tidepool/contract.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

std::vector<k8s::Condition> ConfigConditions(const ClusterOutcome& outcome) {
  const ConfigOutcome& o = outcome.config;
  const int64_t generation = outcome.generation;
  k8s::Condition rendered{.type = api::kConfigRenderedCondition, .observed_generation = generation};
  k8s::Condition ready{.type = api::kReadyCondition, .observed_generation = generation};
  if (!o.rendered) {
    rendered = {api::kConfigRenderedCondition,
                "False",
                api::kRenderFailedReason,
                o.render_error,
                "",
                generation};
    ready = {api::kReadyCondition,
             "False",
             api::kRenderFailedReason,
             "the configuration cannot be rendered",
             "",
             generation};
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

std::vector<k8s::Condition> Conditions(const ClusterOutcome& outcome) {
  std::vector<k8s::Condition> conditions = ConfigConditions(outcome);
  // Without usable auth Secrets no daemon of the cluster can start, whatever the config.
  for (k8s::Condition& c : conditions) {
    if (c.type != api::kReadyCondition || outcome.auth.ready) continue;
    c = {api::kReadyCondition, "False", api::kAuthSecretInvalidReason,
         outcome.auth.error,   "",      outcome.generation};
  }
  return conditions;
}

}  // namespace

ClusterStatusView ReadStatus(const std::string& cluster_json) {
  ClusterStatusView view;
  absl::StatusOr<rapidjson::Document> doc = k8s::ParseJsonObject(cluster_json, "SlurmCluster");
  if (!doc.ok()) return view;
  if (const rapidjson::Value* status = k8s::FindMember(*doc, "status"); status != nullptr) {
    view.config_hash = k8s::StringMember(*status, "configHash");
    view.observed_generation = k8s::IntMember(*status, "observedGeneration");
  }
  view.conditions = k8s::ReadConditions(*doc);
  return view;
}

std::string StatusPatch(const ClusterOutcome& outcome, const ClusterStatusView& current,
                        absl::Time now) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("status");
  w.StartObject();
  w.Key("observedGeneration");
  w.Int64(outcome.generation);
  k8s::WriteStringMember(w, "configHash", outcome.config.applied_hash);
  if (outcome.config.rendered) {
    w.Key("nodes");
    w.Int(outcome.config.nodes);
    w.Key("partitions");
    w.Int(outcome.config.partitions);
  }
  w.Key("conditions");
  w.StartArray();
  for (const k8s::Condition& c : Conditions(outcome)) {
    w.StartObject();
    k8s::WriteStringMember(w, "type", c.type);
    k8s::WriteStringMember(w, "status", c.status);
    k8s::WriteStringMember(w, "reason", c.reason);
    k8s::WriteStringMember(w, "message", c.message);
    k8s::WriteStringMember(w, "lastTransitionTime",
                           k8s::TransitionTime(current.conditions, c, now));
    w.Key("observedGeneration");
    w.Int64(c.observed_generation);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

bool StatusUnchanged(const ClusterOutcome& outcome, const ClusterStatusView& current) {
  if (current.config_hash != outcome.config.applied_hash ||
      current.observed_generation != outcome.generation) {
    return false;
  }
  for (const k8s::Condition& c : Conditions(outcome)) {
    if (!k8s::ConditionUnchanged(current.conditions, c)) return false;
  }
  return true;
}

}  // namespace tidepool::cluster
