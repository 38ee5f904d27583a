#pragma once

#include <cstddef>

#include "absl/time/time.h"
#include "common/periodic_worker.h"

namespace tidepool::common {

// Keeps up to `bytes` of freed heap mapped instead of returning it to the kernel after each
// request. A service that builds and frees large responses (the renderer at 10,000 nodes)
// otherwise pays a page fault for every page of every request. Costs RSS up to `bytes`.
void RetainFreedHeap(size_t bytes);

// Large blocks (a Slurm node list, a relist, a render request of every Node) from their own
// mappings, unmapped when freed, and an arena's free top returned past 2 MiB. glibc's
// default raises both thresholds to the largest block freed so far (up to 32 and 64 MiB);
// from then on such blocks come from the per-thread arenas, whose free tops stay mapped
// (the periodic malloc_trim did not return them). slurm-syncer at 10,000 nodes so held
// 163 MB of heap with 43 MB in use, 34 MB of it in an arena that used 64 KB. Not for a
// service that keeps freed heap on purpose (RetainFreedHeap).
void ReturnLargeBlocksAtOnce();

// Returns freed heap to the kernel every `interval` (malloc_trim) while it lives. glibc
// keeps what a burst freed (a relist, a render request of every Node, thousands of
// writes) mapped in its per-thread arenas: in cluster-controller at 10,000 Nodes that was
// 86 of 258 MB of RSS. Not for a service that keeps freed heap on purpose (RetainFreedHeap).
class FreedHeapReturner {
 public:
  explicit FreedHeapReturner(absl::Duration interval);

 private:
  PeriodicWorker worker_;
};

}  // namespace tidepool::common
