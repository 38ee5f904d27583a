#include "common/heap_tuning.h"

#include <malloc.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/clock.h"

namespace tidepool::common {
namespace {

int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

TEST_CASE("freed heap that glibc keeps mapped is returned to the kernel") {
  // 32 MiB in 64 KiB blocks (below the mmap threshold: heap), each followed by a block of
  // the same size that stays (too large for any free list earlier tests left: both come
  // from the heap's top, in turn). The freed blocks cannot merge into the top, so glibc
  // keeps them mapped, as it keeps what a burst of requests freed between live objects.
  constexpr int kBlocks = 512;
  constexpr size_t kBlockBytes = size_t{64} << 10;
  std::vector<std::unique_ptr<char[]>> burst;
  std::vector<std::unique_ptr<char[]>> staying;
  burst.reserve(kBlocks);
  staying.reserve(kBlocks);
  const int64_t before = ResidentBytes();
  for (int i = 0; i < kBlocks; ++i) {
    burst.emplace_back(new char[kBlockBytes]);
    std::memset(burst.back().get(), 1, kBlockBytes);  // touched: resident
    staying.emplace_back(new char[kBlockBytes]);
  }
  burst.clear();
  const int64_t kept = ResidentBytes();
  FreedHeapReturner returner(absl::Hours(1));  // runs once at start, then hourly
  int64_t now = kept;
  for (int i = 0; i < 50 && kept - now < 16 << 20; ++i) {
    absl::SleepFor(absl::Milliseconds(100));
    now = ResidentBytes();
  }
  INFO("resident before " << before << ", after the burst " << kept << ", after the trim " << now);
  CHECK(kept - now >= 16 << 20);
}

// Blocks whose address escapes here: an allocation nothing reads may be elided.
char* volatile escaped = nullptr;

TEST_CASE("large blocks keep their own mappings after larger ones were freed") {
#if defined(__SANITIZE_ADDRESS__)
  SKIP("AddressSanitizer's allocator is not glibc's");
#endif
  REQUIRE(ReturnLargeBlocksAtOnce().ok());
  // glibc's default would raise the mmap threshold to 8 MiB when the first block is freed,
  // and serve the second from the heap, which then keeps it mapped after it is freed.
  auto first = std::make_unique<char[]>(8 << 20);
  escaped = first.get();
  first.reset();
  const size_t mapped_before = mallinfo2().hblks;
  auto second = std::make_unique<char[]>(4 << 20);
  escaped = second.get();
  CHECK(mallinfo2().hblks == mapped_before + 1);
  second.reset();
  CHECK(mallinfo2().hblks == mapped_before);
}

TEST_CASE("more retained heap than mallopt can take is refused before anything is set") {
  constexpr size_t kTooMuch = size_t{std::numeric_limits<int>::max()} + 1;
  const absl::Status status = RetainFreedHeap(kTooMuch);
  CHECK(status.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(status.message(), "at most 2147483647"));
  CHECK(ApplyHeapPolicy(RetainHeap{.bytes = kTooMuch}).code() ==
        absl::StatusCode::kInvalidArgument);
#if !defined(__SANITIZE_ADDRESS__)
  // Nothing was set: a 4 MiB block still has its own mapping (the threshold is 1 MiB after
  // the test above, 128 KiB by default; retaining would have set it to a quarter of
  // kTooMuch, 512 MiB, which glibc 2.36 takes, and served the block from the heap).
  const size_t mapped_before = mallinfo2().hblks;
  auto block = std::make_unique<char[]>(4 << 20);
  escaped = block.get();
  CHECK(mallinfo2().hblks == mapped_before + 1);
#endif
}

}  // namespace
}  // namespace tidepool::common
