#pragma once
// What the real-node tests share: kubectl with the admin kubeconfig, applying manifests,
// namespaces, and the project's images as the nodes report them.
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "support/testenv.h"

namespace tidepool::testing {

KubernetesEnv RequireKubernetes();

// kubectl ARGS, which must succeed; its output.
std::string MustKubectl(const KubernetesEnv& env, const std::vector<std::string>& args,
                        absl::Duration timeout = absl::Seconds(90));

// kubectl ARGS; its output when it succeeded, nullopt otherwise.
std::optional<std::string> TryKubectl(const KubernetesEnv& env,
                                      const std::vector<std::string>& args);

// A command (argv[0] a path) that must succeed.
void MustRun(const std::vector<std::string>& argv);

// kubectl apply of a YAML manifest.
void Apply(const KubernetesEnv& env, const std::string& manifest);

// The namespace, once its default ServiceAccount exists (pods need it).
void EnsureNamespace(const KubernetesEnv& env, const std::string& ns);

// "localhost/tidepool/slurmd:26.05" of every node's image list, pause excluded, sorted.
std::vector<std::string> ProjectImages(const KubernetesEnv& env);

// The Slurm versions the nodes carry images of (the tags of localhost/tidepool/slurmctld),
// oldest first. kNewest: only the newest, for tests of what does not differ between
// versions (the whole-cluster test runs every version), which keeps the nodes suite short;
// TIDEPOOL_NODES_ALL_SLURM=1 makes every test run every version.
enum class SlurmVersions { kAll, kNewest };
std::vector<std::string> SlurmTags(const KubernetesEnv& env, SlurmVersions which);

// A test's namespace for one Slurm version: "<prefix>-26-05".
std::string SlurmTagNamespace(const std::string& prefix, const std::string& tag);

}  // namespace tidepool::testing
