#include "scheduler_name.h"

#include <tuple>

#include "absl/strings/str_cat.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {
namespace {

using tidepool::v1::SlurmCluster;

std::string KeyOf(const SlurmCluster& cluster) {
  return absl::StrCat(cluster.metadata().namespace_(), "/", cluster.metadata().name());
}

// "" while the cluster's pod scheduler is disabled.
std::string NameOf(const SlurmCluster& cluster) {
  const tidepool::v1::PodSchedulerSpec& spec = cluster.spec().pod_scheduler();
  if (!spec.enabled()) return "";
  return spec.scheduler_name().empty() ? api::kDefaultPodSchedulerName : spec.scheduler_name();
}

// Made earlier; RFC 3339 times of the API server's one format compare as text.
bool Older(const SlurmCluster& a, const SlurmCluster& b) {
  return std::forward_as_tuple(a.metadata().creation_timestamp(), KeyOf(a)) <
         std::forward_as_tuple(b.metadata().creation_timestamp(), KeyOf(b));
}

}  // namespace

SchedulerChoice ChooseSchedulerName(const std::string& own_key,
                                    const std::vector<SlurmCluster>& clusters) {
  const SlurmCluster* own = nullptr;
  for (const SlurmCluster& cluster : clusters) {
    if (KeyOf(cluster) == own_key) own = &cluster;
  }
  if (own == nullptr) return {};
  SchedulerChoice choice{.name = NameOf(*own)};
  if (choice.name.empty()) return choice;
  const SlurmCluster* keeper = nullptr;
  for (const SlurmCluster& other : clusters) {
    if (&other == own || NameOf(other) != choice.name || !Older(other, *own)) continue;
    if (keeper == nullptr || Older(other, *keeper)) keeper = &other;
  }
  if (keeper != nullptr) return {.name = "", .taken_by = KeyOf(*keeper)};
  return choice;
}

}  // namespace tidepool::podsched
