#pragma once

// The manifests/ directory applied to the test API server, for the tests of this folder.

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "support/testenv.h"

namespace tidepool::testing {

inline const std::string kManifests = TIDEPOOL_MANIFESTS_DIR;

inline CommandResult MustKubectl(const KubernetesEnv& env, const std::vector<std::string>& args) {
  auto result = Kubectl(env, args);
  REQUIRE(result.ok());
  INFO(result->output);
  REQUIRE(result->exit_code == 0);
  return *result;
}

// Applies the CRDs, RBAC and the namespaces the tests use (idempotent).
inline void PrepareManifests(const KubernetesEnv& env) {
  MustKubectl(env, {"apply", "-f", kManifests + "/crds"});
  MustKubectl(env, {"wait", "--for", "condition=established", "--timeout=60s",
                    "crd/slurmclusters.tidepool.dev", "crd/nodesets.tidepool.dev"});
  MustKubectl(env, {"apply", "-f", kManifests + "/rbac/namespace.yaml"});
  // Before the RBAC: its Roles for a SlurmCluster's Secrets live in hpc.
  for (const char* ns : {"hpc", "elsewhere"}) {
    auto created = Kubectl(env, {"create", "namespace", ns});  // fails when it exists
    REQUIRE(created.ok());
  }
  MustKubectl(env, {"apply", "-f", kManifests + "/rbac"});
}

}  // namespace tidepool::testing
