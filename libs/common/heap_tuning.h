#pragma once

#include <cstddef>

namespace tidepool::common {

// Keeps up to `bytes` of freed heap mapped instead of returning it to the kernel after each
// request. A service that builds and frees large responses (the renderer at 10,000 nodes)
// otherwise pays a page fault for every page of every request. Costs RSS up to `bytes`.
void RetainFreedHeap(size_t bytes);

}  // namespace tidepool::common
