#include "teardown_plan.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tidepool/contract.h"

namespace tidepool::cluster {
namespace {

// Names listed in a message: a few, then how many more.
constexpr size_t kNamesInMessage = 3;

std::string NameList(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  const size_t total = names.size();
  if (total > kNamesInMessage) names.resize(kNamesInMessage);
  std::string list = absl::StrJoin(names, ", ");
  if (total > kNamesInMessage) absl::StrAppend(&list, " and ", total - kNamesInMessage, " more");
  return list;
}

}  // namespace

const std::vector<const char*>& TeardownStages() {
  static const std::vector<const char*> stages = {api::kLoginComponent, api::kSlurmrestdComponent,
                                                  api::kSlurmctldComponent, api::kSlurmdbdComponent,
                                                  api::kAccountingDatabaseComponent};
  return stages;
}

TeardownDecision NextTeardownAction(const TeardownObservation& observed) {
  for (const char* stage : TeardownStages()) {
    TeardownDecision decision{.action = TeardownAction::kWaitForPods, .stage = stage};
    std::vector<std::string> going;
    for (const TeardownWorkload& workload : observed.workloads) {
      if (workload.component != stage) continue;
      if (!workload.deleting) decision.workloads.push_back(workload);
      going.push_back(absl::StrCat(workload.kind, " ", workload.name));
    }
    for (const TeardownPod& pod : observed.pods) {
      if (pod.component == stage) going.push_back(absl::StrCat("pod ", pod.name));
    }
    if (going.empty()) continue;  // this stage is done (or the cluster never had it)
    if (!decision.workloads.empty()) decision.action = TeardownAction::kDeleteWorkloads;
    decision.waiting_for = absl::StrCat(stage, " to stop: ", NameList(std::move(going)));
    return decision;
  }
  if (observed.delete_claims && !observed.claims.empty()) {
    return {.action = TeardownAction::kDeleteClaims,
            .claims = observed.claims,
            .waiting_for = absl::StrCat("claims to be deleted: ", NameList(observed.claims))};
  }
  return {.action = TeardownAction::kRemoveFinalizer};
}

bool DeleteClaimsRequested(absl::string_view annotation_value) {
  return absl::EqualsIgnoreCase(annotation_value, "true");
}

}  // namespace tidepool::cluster
