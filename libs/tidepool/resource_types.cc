#include "tidepool/resource_types.h"

#include "tidepool/resources.h"

namespace tidepool::api {

const k8s::ResourceType& SlurmClusters() {
  static const k8s::ResourceType type{std::string(kGroup), "v1alpha1", "slurmclusters", true};
  return type;
}

const k8s::ResourceType& NodeSets() {
  static const k8s::ResourceType type{std::string(kGroup), "v1alpha1", "nodesets", true};
  return type;
}

}  // namespace tidepool::api
