#include "common/heap_tuning.h"

#include <malloc.h>

#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tidepool::common {

namespace {

constexpr size_t kMiB = size_t{1} << 20;
// mallopt takes an int: a larger value would wrap.
constexpr size_t kLargestSetting = std::numeric_limits<int>::max();

struct Setting {
  int parameter;
  const char* name;
  size_t value;
};

// Every setting is tried; the error names those glibc refused (mallopt returns 0).
absl::Status Apply(std::initializer_list<Setting> settings) {
  std::vector<std::string> refused;
  for (const Setting& s : settings) {
    if (mallopt(s.parameter, static_cast<int>(s.value)) == 0) {
      refused.push_back(absl::StrCat(s.name, "=", s.value));
    }
  }
  if (refused.empty()) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("glibc refused mallopt ", absl::StrJoin(refused, ", "),
                   "; freed heap is kept or returned as glibc's defaults say"));
}

}  // namespace

FreedHeapReturner::FreedHeapReturner(absl::Duration interval)
    : worker_(interval, [] { malloc_trim(0); }) {}

absl::Status ReturnLargeBlocksAtOnce() {
  return Apply({{M_MMAP_THRESHOLD, "M_MMAP_THRESHOLD", 1 * kMiB},
                {M_TRIM_THRESHOLD, "M_TRIM_THRESHOLD", 2 * kMiB}});
}

absl::Status RetainFreedHeap(size_t bytes) {
  if (bytes > kLargestSetting) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot retain ", bytes, " bytes of freed heap: at most ", kLargestSetting,
                     " (glibc's mallopt takes an int)"));
  }
  // Large blocks from the heap rather than fresh mmaps, and no trimming below `bytes`.
  return Apply({{M_MMAP_THRESHOLD, "M_MMAP_THRESHOLD", bytes / 4},
                {M_TRIM_THRESHOLD, "M_TRIM_THRESHOLD", bytes},
                {M_TOP_PAD, "M_TOP_PAD", bytes / 4}});
}

absl::Status ApplyHeapPolicy(const HeapPolicy& policy) {
  if (const auto* retain = std::get_if<RetainHeap>(&policy)) return RetainFreedHeap(retain->bytes);
  absl::Status status = ReturnLargeBlocksAtOnce();
  if (const int arenas = std::get<ReturnHeap>(policy).arenas; arenas > 0) {
    status.Update(Apply({{M_ARENA_MAX, "M_ARENA_MAX", static_cast<size_t>(arenas)}}));
  }
  return status;
}

}  // namespace tidepool::common
