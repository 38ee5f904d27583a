#include "placement_policy.h"

#include <algorithm>

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

// One placement annotation: the JobSpec field it fills and the rules' list of its values.
struct Kind {
  const char* annotation;
  const char* field;  // in placementPolicy rules
  const char* what;
  const std::string& (tidepool::v1::JobSpec::*value)() const;
  const Names& (PlacementRule::*listed)() const;
  bool free_unless_listed;  // any value while no rule for the namespace lists one
};

constexpr Kind kKinds[] = {
    {api::kPartitionAnnotation, "partitions", "partition", &tidepool::v1::JobSpec::partition,
     &PlacementRule::partitions, true},
    {api::kAccountAnnotation, "accounts", "account", &tidepool::v1::JobSpec::account,
     &PlacementRule::accounts, false},
    {api::kQosAnnotation, "qos", "QoS", &tidepool::v1::JobSpec::qos, &PlacementRule::qos, false},
    {api::kReservationAnnotation, "reservations", "reservation",
     &tidepool::v1::JobSpec::reservation, &PlacementRule::reservations, false},
};

}  // namespace

absl::Status PlacementPolicy::Allows(const tidepool::v1::JobSpec& job, absl::string_view ns) const {
  for (const Kind& kind : kKinds) {
    const std::string& value = (job.*kind.value)();
    bool any_listed = false;
    bool allowed = false;
    for (const PlacementRule& rule : rules_) {
      if (!Covers(rule, ns)) continue;
      any_listed = any_listed || !(rule.*kind.listed)().empty();
      allowed = allowed || Lists((rule.*kind.listed)(), value);
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
