#pragma once

#include <cstddef>
#include <variant>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "common/periodic_worker.h"

namespace tidepool::common {

// Large blocks from their own mappings (ReturnLargeBlocksAtOnce) and the rest returned
// every `every` (FreedHeapReturner; never when zero): for services that hold caches and see
// bursts.
struct ReturnHeap {
  absl::Duration every = absl::Seconds(30);
  // glibc's malloc arenas at most (0: glibc's default, 8 per core). Each arena keeps what
  // was freed in it until trimmed, and a service's threads (gRPC's, the informers', the
  // workers') each take one of their own up to the limit; a controller gains nothing from
  // more than two. In a 2,000-node mass cordon cluster-controller had 16, one of them
  // 8.8 MB mapped for 1.1 MB in use.
  int arenas = 2;
};
// Up to `bytes` kept mapped between requests (RetainFreedHeap): for a service that builds
// and frees large responses.
struct RetainHeap {
  size_t bytes = 0;
};
// What a service does with heap it frees; the service runner applies it at start
// (ApplyHeapPolicy) and runs the periodic return.
using HeapPolicy = std::variant<ReturnHeap, RetainHeap>;

// Sets glibc's thresholds for `policy` (before any large block is allocated: glibc stops
// moving them once they are set). An error names a setting glibc refused; the others are
// set.
absl::Status ApplyHeapPolicy(const HeapPolicy& policy);

// Keeps up to `bytes` of freed heap mapped instead of returning it to the kernel after each
// request. A service that builds and frees large responses (the renderer at 10,000 nodes)
// otherwise pays a page fault for every page of every request. Costs RSS up to `bytes`.
// InvalidArgument, and nothing set, past INT_MAX bytes: glibc's mallopt takes an int.
absl::Status RetainFreedHeap(size_t bytes);

// Large blocks (a Slurm node list, a relist, a render request of every Node) from their own
// mappings, unmapped when freed, and an arena's free top returned past 2 MiB. glibc's
// default raises both thresholds to the largest block freed so far (up to 32 and 64 MiB);
// from then on such blocks come from the per-thread arenas, whose free tops stay mapped
// (the periodic malloc_trim did not return them). slurm-syncer at 10,000 nodes so held
// 163 MB of heap with 43 MB in use, 34 MB of it in an arena that used 64 KB. Not for a
// service that keeps freed heap on purpose (RetainFreedHeap).
absl::Status ReturnLargeBlocksAtOnce();

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
