#include "common/heap_tuning.h"

#include <malloc.h>

#include <climits>

namespace tidepool::common {

FreedHeapReturner::FreedHeapReturner(absl::Duration interval)
    : worker_(interval, [] { malloc_trim(0); }) {}

void ReturnLargeBlocksAtOnce() {
  constexpr int kMiB = 1 << 20;
  mallopt(M_MMAP_THRESHOLD, 1 * kMiB);
  mallopt(M_TRIM_THRESHOLD, 2 * kMiB);
}

void RetainFreedHeap(size_t bytes) {
  const int limit = bytes > static_cast<size_t>(INT_MAX) ? INT_MAX : static_cast<int>(bytes);
  // Large blocks from the heap rather than fresh mmaps, and no trimming below `limit`.
  mallopt(M_MMAP_THRESHOLD, limit / 4);
  mallopt(M_TRIM_THRESHOLD, limit);
  mallopt(M_TOP_PAD, limit / 4);
}

}  // namespace tidepool::common
