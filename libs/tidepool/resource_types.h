#pragma once

// Tidepool's custom resources as the Kubernetes client addresses them.

#include "k8s/resource.h"

namespace tidepool::api {

const k8s::ResourceType& SlurmClusters();
const k8s::ResourceType& NodeSets();

}  // namespace tidepool::api
