#pragma once

// Projects the rendered Slurm configuration into the Slurm test environment as a kubelet
// projects a ConfigMap volume into slurmd pods: the data keys of the ConfigMap labelled
// tidepool.dev/component=slurm-config (slurm.conf, gres.conf, topology.conf, …) become
// files in a directory, and when their content changes the environment's reconfigure
// applies them (new nodes get namespaces and addresses, slurmctld reads the config).
// slurmd of new nodes is started by the pod controller once their pods exist.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/periodic_worker.h"
#include "k8s/informer.h"
#include "slurm_testenv.h"

namespace tidepool::node_agent {

using ConfigFiles = std::map<std::string, std::string>;  // file name → content

struct ProjectedConfig {
  std::string source;  // namespace/name of the ConfigMap
  ConfigFiles files;
};

// The configuration to project from the labelled ConfigMaps: the first (by
// namespace/name) whose data has slurm.conf; nullopt when none has. `ignored` gets the
// keys of other candidates (a warning: only one cluster per Slurm environment).
std::optional<ProjectedConfig> ChooseConfig(const std::vector<k8s::CachedObjectPtr>& config_maps,
                                            std::vector<std::string>& ignored);

// Writes `files` into `dir` (created if missing) and removes other regular files there.
// InvalidArgument for a file name that is not a plain name.
absl::Status WriteConfigDir(const std::string& dir, const ConfigFiles& files);

// Empty files "<prefix>0" … "<prefix><count-1>" added to the projected ones: simulated
// Nodes have no GPUs, and slurmd refuses gres.conf File= entries that do not exist, so
// the configuration points its GPU device prefix at these (a kubelet device plugin's
// job on a real node).
void AddGpuPlaceholders(const std::string& prefix, int count, ConfigFiles& files);

struct GpuPlaceholders {
  std::string prefix;  // empty: none
  int count = 0;
};

class ConfigProjector {
 public:
  // `on_applied` runs after each successful reconfigure. A changed config is applied at
  // most once per `reconfigure_spacing` (the latest one then). The informer and
  // environment outlive the projector.
  ConfigProjector(k8s::Informer& config_maps, SlurmTestenv& slurm, std::string dir,
                  std::function<void()> on_applied, absl::Duration retry_interval,
                  absl::Duration reconfigure_spacing, GpuPlaceholders gpu_placeholders = {});
  ~ConfigProjector() { Stop(); }

  void Start();
  void Stop();

 private:
  void ProjectOnce();

  k8s::Informer& config_maps_;
  SlurmTestenv& slurm_;
  const std::string dir_;
  const std::function<void()> on_applied_;
  const absl::Duration retry_interval_;
  const absl::Duration reconfigure_spacing_;
  const GpuPlaceholders gpu_placeholders_;
  // Only the worker thread touches these.
  std::optional<ConfigFiles> applied_;
  std::optional<absl::Time> last_reconfigure_;
  std::unique_ptr<common::PeriodicWorker> worker_;
};

}  // namespace tidepool::node_agent
