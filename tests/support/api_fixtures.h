#pragma once

#include <string>

#include "tidepool/resources.h"

namespace tidepool::testing {

// Tidepool resources from short JSON, for tests.

// A NodeSet of cluster "research" with the given spec fields (a JSON object body).
inline tidepool::v1::NodeSet NodeSetWith(const std::string& name, const std::string& spec_fields) {
  return api::ParseNodeSet(R"({"apiVersion": "tidepool.dev/v1alpha1", "kind": "NodeSet",
      "metadata": {"name": ")" + name + R"(", "namespace": "hpc"},
      "spec": {"clusterRef": {"name": "research"})" +
                           (spec_fields.empty() ? "" : ", " + spec_fields) + "}}")
      .value();
}

// A Node with labels and spec fields given as JSON object bodies.
inline tidepool::v1::NodeInfo NodeWith(const std::string& name, const std::string& labels,
                                       const std::string& spec_fields = "") {
  return api::ParseNode(R"({"kind": "Node", "metadata": {"name": ")" + name +
                        R"(", "labels": {)" + labels + R"(}}, "spec": {)" + spec_fields +
                        R"(}, "status": {"allocatable": {"cpu": "64", "memory": "64Gi"}}})")
      .value();
}

}  // namespace tidepool::testing
