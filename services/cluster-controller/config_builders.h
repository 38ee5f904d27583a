#pragma once

// Pure builders and readers of what the config step writes: the "<cluster>-slurm-config"
// ConfigMap with the rendered files, its hash, and when it was written (kept on the
// ConfigMap, so a new leader waits out the propagation delay of a ConfigMap its
// predecessor wrote instead of reconfiguring early).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "tidepool/v1/renderer.pb.h"
#include "tidepool/v1/slurm_cluster.pb.h"

namespace tidepool::cluster {

// A server-side apply body for "<cluster>-slurm-config": the files as data, labels
// tidepool.dev/component=slurm-config and tidepool.dev/cluster, the hash and written-at
// annotations, and the SlurmCluster as controlling owner (so the ConfigMap goes when the
// cluster does).
std::string ConfigMapApplyBody(const v1::SlurmCluster& cluster, const v1::RenderResponse& rendered,
                               absl::Time written_at);

// A merge patch setting a pod's tidepool.dev/config-hash annotation (the config it should
// see; changing it makes kubelet refresh the pod's ConfigMap volume).
std::string ConfigHashAnnotationPatch(absl::string_view hash);

// The tidepool.dev/config-hash annotation of a ConfigMap's JSON ("" when absent).
std::string ConfigMapHash(absl::string_view config_map_json);
// The written-at annotation; nullopt when absent or unreadable (written by an older
// controller: its files have long propagated).
std::optional<absl::Time> ConfigMapWrittenAt(absl::string_view config_map_json);

// How long to wait still until `delay` has passed since `since` (zero or less: now; no
// `since`: nothing to wait for). For the propagation delay from a ConfigMap's write time
// and the spacing from this replica's last reconfigure of the cluster.
absl::Duration WaitLeft(std::optional<absl::Time> since, absl::Duration delay, absl::Time now);

}  // namespace tidepool::cluster
