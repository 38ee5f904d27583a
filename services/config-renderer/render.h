#pragma once

#include <cstddef>

#include "absl/status/statusor.h"
#include "tidepool/v1/renderer.pb.h"

namespace tidepool::renderer {

// Freed heap the renderer keeps between requests (see common::RetainFreedHeap): enough for
// the working set of a 10,000-node render, well under the 150 MB service budget.
inline constexpr size_t kRetainedHeapBytes = size_t{128} << 20;

// Renders slurm.conf, gres.conf, topology.conf and cgroup.conf for a cluster, its
// NodeSets and their member nodes. Pure and deterministic: the same request gives the
// same bytes and hash, whatever the order of NodeSets and members in it.
// InvalidArgument, naming the field, when the request cannot be rendered.
absl::StatusOr<tidepool::v1::RenderResponse> Render(const tidepool::v1::RenderRequest& request);

// The checks of Render without producing files; returns the warnings.
absl::StatusOr<tidepool::v1::ValidateResponse> Validate(const tidepool::v1::RenderRequest& request);

}  // namespace tidepool::renderer
