// A process of its own: glibc creates arenas for threads once and never removes them, so
// the count is only meaningful where no other test started threads before the policy.
#include <malloc.h>
#include <stdio.h>

#include <barrier>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/heap_tuning.h"

namespace tidepool::common {
namespace {

// The arenas glibc has made so far: malloc_info lists each as <heap nr="N">. None when
// malloc_info's report cannot be had.
std::optional<int> ArenaCount() {
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (out == nullptr) return std::nullopt;
  const int reported = malloc_info(0, out);
  fclose(out);
  if (reported != 0 || text == nullptr) {
    free(text);
    return std::nullopt;
  }
  const std::string info(text, size);
  free(text);
  int count = 0;
  for (size_t at = info.find("<heap nr="); at != std::string::npos;
       at = info.find("<heap nr=", at + 1)) {
    ++count;
  }
  return count;
}

TEST_CASE("the return policy's threads share at most its arenas") {
#if defined(__SANITIZE_ADDRESS__)
  SKIP("AddressSanitizer's allocator is not glibc's");
#endif
  REQUIRE(ApplyHeapPolicy(ReturnHeap{.arenas = 2}).ok());
  // Eight threads allocate at once, each holding its block until all have one: by glibc's
  // default (8 arenas per core) most would get an arena of their own.
  constexpr int kThreads = 8;
  std::barrier all_allocated(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&all_allocated] {
      auto block = std::make_unique<char[]>(4096);
      volatile char* escaped = block.get();
      *escaped = 1;
      all_allocated.arrive_and_wait();
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::optional<int> arenas = ArenaCount();
  REQUIRE(arenas.has_value());
  // At least the main arena: a report this count cannot read must not pass.
  CHECK(*arenas >= 1);
  CHECK(*arenas <= 2);
}

}  // namespace
}  // namespace tidepool::common
