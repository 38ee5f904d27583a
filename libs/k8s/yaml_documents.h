#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::k8s {

// Kubernetes objects in YAML or JSON text (several documents separated by "---", and
// "kind: List" / "*List" documents as `kubectl get -o yaml` prints them, unpacked) as one
// JSON text per object. Scalars keep their YAML type: quoted ones stay strings.
absl::StatusOr<std::vector<std::string>> ObjectsAsJson(absl::string_view text);

}  // namespace tidepool::k8s
