#include "status.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "k8s/object_json.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "tidepool/contract.h"

namespace tidepool::cluster {
namespace {

using k8s::JsonWriter;

k8s::Condition ConfigRendered(const ConfigOutcome& o, int64_t generation) {
  if (!o.rendered) {
    return {api::kConfigRenderedCondition,
            "False",
            api::kRenderFailedReason,
            o.render_error,
            "",
            generation};
  }
  return {api::kConfigRenderedCondition,
          "True",
          "Rendered",
          absl::StrCat(o.nodes, " nodes in ", o.partitions, " partitions, ", o.rendered_hash),
          "",
          generation};
}

// "<Type>": True while at least one `daemon` is ready.
k8s::Condition ComponentAvailable(const char* type, absl::string_view daemon,
                                  const ComponentOutcome& o, int64_t generation) {
  k8s::Condition c{.type = type, .observed_generation = generation};
  std::string reason_daemon(daemon);
  reason_daemon[0] = absl::ascii_toupper(reason_daemon[0]);
  if (!o.applied) {
    c.status = "False";
    c.reason = o.blocked_reason;
    c.message = o.error;
  } else if (o.ready_replicas > 0) {
    c.status = "True";
    c.reason = absl::StrCat(reason_daemon, "Ready");
    c.message = absl::StrCat(o.ready_replicas, " of ", o.replicas, " ", daemon, " ready");
  } else {
    c.status = "False";
    c.reason = absl::StrCat(reason_daemon, "NotReady");
    c.message = absl::StrCat("0 of ", o.replicas, " ", daemon, " ready; see kubectl get pods -l ",
                             o.pod_selector);
  }
  return c;
}

// Ready: every managed component available and Slurm running the rendered config; the
// reason is the first thing in the way.
k8s::Condition Ready(const ClusterOutcome& outcome, const std::vector<k8s::Condition>& parts) {
  const ConfigOutcome& o = outcome.config;
  const int64_t generation = outcome.generation;
  if (!outcome.auth.ready) {
    return {api::kReadyCondition, "False", api::kAuthSecretInvalidReason,
            outcome.auth.error,   "",      generation};
  }
  for (const k8s::Condition& part : parts) {
    if (part.status != "True") {
      return {api::kReadyCondition,
              "False",
              part.reason,
              absl::StrCat(part.type, ": ", part.message),
              "",
              generation};
    }
  }
  if (o.applied_hash == o.rendered_hash) {
    return {api::kReadyCondition,
            "True",
            "ConfigApplied",
            absl::StrCat("Slurm was reconfigured with ", o.applied_hash),
            "",
            generation};
  }
  if (!o.reconfigure_error.empty()) {
    return {api::kReadyCondition, "False", "ReconfigureFailed",
            o.reconfigure_error,  "",      generation};
  }
  if (!o.load_pending.empty()) {
    return {api::kReadyCondition, "False", "ConfigNotLoaded", o.load_pending, "", generation};
  }
  return {api::kReadyCondition,
          "False",
          "ConfigPropagating",
          absl::StrCat("waiting for ", o.rendered_hash,
                       " to reach the Slurm controller before reconfiguring"),
          "",
          generation};
}

// StorageMatchesSpec: the claims have the class and size the spec asks; not part of Ready,
// a claim that cannot follow its field still serves the data it holds.
k8s::Condition StorageMatchesSpec(const ClusterOutcome& outcome) {
  if (outcome.storage.empty() && outcome.storage_unchecked) {
    return {api::kStorageMatchesSpecCondition,
            "Unknown",
            "ClaimsNotChecked",
            "the claims are compared with the spec once it is valid (see the components' "
            "InvalidSpec conditions)",
            "",
            outcome.generation};
  }
  if (outcome.storage.empty()) {
    return {api::kStorageMatchesSpecCondition,
            "True",
            "ClaimsAsSpecified",
            "every claim has the class and size the spec asks",
            "",
            outcome.generation};
  }
  std::vector<std::string> messages;
  for (const StorageNote& note : outcome.storage) messages.push_back(note.message);
  return {api::kStorageMatchesSpecCondition, "False", outcome.storage.front().reason,
          absl::StrJoin(messages, "; "),     "",      outcome.generation};
}

std::vector<k8s::Condition> Conditions(const ClusterOutcome& outcome) {
  std::vector<k8s::Condition> conditions;
  if (outcome.controller.managed) {
    conditions.push_back(ComponentAvailable(api::kControllerAvailableCondition, "slurmctld",
                                            outcome.controller, outcome.generation));
  }
  if (outcome.rest_api.managed) {
    conditions.push_back(ComponentAvailable(api::kRestApiAvailableCondition, "slurmrestd",
                                            outcome.rest_api, outcome.generation));
  }
  if (outcome.accounting.managed) {
    // slurmdbd waits for a managed database (AccountingStep), so its condition covers both.
    conditions.push_back(ComponentAvailable(api::kAccountingAvailableCondition, "slurmdbd",
                                            outcome.accounting, outcome.generation));
  }
  if (outcome.login.managed) {
    conditions.push_back(ComponentAvailable(api::kLoginAvailableCondition, "sshd", outcome.login,
                                            outcome.generation));
  }
  conditions.push_back(ConfigRendered(outcome.config, outcome.generation));
  conditions.push_back(Ready(outcome, conditions));
  if (outcome.controller.managed || outcome.accounting_database.managed) {
    conditions.push_back(StorageMatchesSpec(outcome));
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
