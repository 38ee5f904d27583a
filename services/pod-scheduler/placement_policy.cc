#include "placement_policy.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {
namespace {

using tidepool::v1::PlacementRule;
using Names = google::protobuf::RepeatedPtrField<std::string>;

bool Lists(const Names& names, absl::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool Covers(const PlacementRule& rule, absl::string_view ns) {
  return Lists(rule.namespaces(), ns) || Lists(rule.namespaces(), "*");
}

struct Kind {
  const char* annotation;
  const char* field;  // in placementPolicy rules
  const char* what;
  std::function<const std::string&(const tidepool::v1::JobSpec&)> value;
  std::function<const Names&(const PlacementRule&)> listed;
  bool free_unless_listed;  // any value while no rule for the namespace lists one
};

const std::vector<Kind>& Kinds() {
  static const auto* const kinds = new std::vector<Kind>{
      {api::kPartitionAnnotation, "partitions", "partition",
       [](const auto& job) -> const std::string& { return job.partition(); },
       [](const PlacementRule& rule) -> const Names& { return rule.partitions(); }, true},
      {api::kAccountAnnotation, "accounts", "account",
       [](const auto& job) -> const std::string& { return job.account(); },
       [](const PlacementRule& rule) -> const Names& { return rule.accounts(); }, false},
      {api::kQosAnnotation, "qos", "QoS",
       [](const auto& job) -> const std::string& { return job.qos(); },
       [](const PlacementRule& rule) -> const Names& { return rule.qos(); }, false},
      {api::kReservationAnnotation, "reservations", "reservation",
       [](const auto& job) -> const std::string& { return job.reservation(); },
       [](const PlacementRule& rule) -> const Names& { return rule.reservations(); }, false},
  };
  return *kinds;
}

}  // namespace

absl::Status PlacementPolicy::Allows(const tidepool::v1::JobSpec& job, absl::string_view ns) const {
  for (const Kind& kind : Kinds()) {
    const std::string& value = kind.value(job);
    bool any_listed = false;
    bool allowed = false;
    for (const PlacementRule& rule : rules_) {
      if (!Covers(rule, ns)) continue;
      any_listed = any_listed || !kind.listed(rule).empty();
      allowed = allowed || Lists(kind.listed(rule), value);
    }
    if (value.empty()) {
      // Slurm's default partition is not one the rules chose for the namespace.
      if (!kind.free_unless_listed || !any_listed) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "annotation ", kind.annotation, " is missing: SlurmCluster ", cluster_, " lists the ",
          kind.field, " pods of namespace ", ns, " may use in spec.podScheduler.placementPolicy[].",
          kind.field, "; name one"));
    }
    if (allowed || (kind.free_unless_listed && !any_listed)) continue;
    return absl::InvalidArgumentError(absl::StrCat(
        "annotation ", kind.annotation, ": \"", value, "\" is not allowed in namespace ", ns,
        ": SlurmCluster ", cluster_, " lists no such ", kind.what,
        " for it in spec.podScheduler.placementPolicy[].", kind.field));
  }
  return absl::OkStatus();
}

}  // namespace tidepool::podsched
