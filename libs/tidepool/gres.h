#pragma once

// GRES: a NodeSet's spec.slurm.gres text, and the GPUs a Node reports (the NVIDIA device
// plugin's resource and GPU feature discovery's labels) as Slurm GRES. Shared by the
// renderer (gres.conf, NodeName GRES) and any service that checks a NodeSet's GRES.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tidepool/v1/meta.pb.h"

namespace tidepool::api {

// GPU feature discovery's labels of a Node's GPUs (NodeGpuGres reads them).
inline constexpr char kGpuCountLabel[] = "nvidia.com/gpu.count";
inline constexpr char kGpuProductLabel[] = "nvidia.com/gpu.product";

struct GresSpec {
  std::string name;
  std::string type;  // "" when untyped
  int count = 0;

  std::string ToString() const;  // "gpu:h100:8" or "gpu:8"
};

// "gpu:h100:8" or "gpu:8" (a NodeSet's spec.slurm.gres).
absl::StatusOr<GresSpec> ParseGresSpec(absl::string_view text);

// The short Slurm GPU type for a value of the nvidia.com/gpu.product label:
// "NVIDIA-H100-80GB-HBM3" -> "h100", "NVIDIA-A100-SXM4-80GB" -> "a100",
// "NVIDIA-RTX-A6000" -> "rtxa6000". Empty when nothing usable remains.
std::string SlurmGpuType(absl::string_view product);

// GPUs of a Node: count from allocatable nvidia.com/gpu, else the nvidia.com/gpu.count
// label; type from nvidia.com/gpu.product. nullopt when the Node has no GPU.
absl::StatusOr<std::optional<GresSpec>> NodeGpuGres(const tidepool::v1::NodeInfo& node);

}  // namespace tidepool::api
