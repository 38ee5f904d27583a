// Work-queue throughput: producers add keys drawn from a fixed set (so many adds are
// duplicates of keys already queued, as informer events for busy objects are), workers
// Get and Done them, and the run is timed until everything added has been handed out.
// Prints adds/s and processed keys/s. Not run by ctest.
//
//   k8s_workqueue_bench [adds=2000000] [keys=10000] [producers=2] [workers=4]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "k8s/workqueue.h"

namespace {

int Arg(int argc, char** argv, int index, int fallback) {
  int value = fallback;
  if (argc > index && (!absl::SimpleAtoi(argv[index], &value) || value <= 0)) {
    std::fprintf(stderr, "usage: k8s_workqueue_bench [adds] [keys] [producers] [workers]\n");
    std::exit(2);
  }
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  const int adds = Arg(argc, argv, 1, 2000000);
  const int key_count = Arg(argc, argv, 2, 10000);
  const int producers = Arg(argc, argv, 3, 2);
  const int workers = Arg(argc, argv, 4, 4);
  std::vector<std::string> keys;
  for (int i = 0; i < key_count; ++i) keys.push_back(absl::StrCat("ns-", i % 50, "/pod-", i));

  tidepool::k8s::WorkQueue queue(tidepool::common::RealClock());
  std::atomic<int64_t> processed{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&] {
      while (std::optional<std::string> key = queue.Get()) {
        queue.Done(*key);
        ++processed;
      }
    });
  }
  std::vector<std::thread> producer_threads;
  for (int p = 0; p < producers; ++p) {
    producer_threads.emplace_back([&, p] {
      std::mt19937 random(p);
      for (int i = p; i < adds; i += producers) queue.Add(keys[random() % keys.size()]);
    });
  }
  for (std::thread& thread : producer_threads) thread.join();
  const double adding_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  queue.ShutDown();  // workers drain what is queued, then stop
  for (std::thread& thread : threads) thread.join();
  const double total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "work queue: %d adds of %d distinct keys by %d producers, %d workers "
      "(Get + Done)\n",
      adds, key_count, producers, workers);
  std::printf("  adds: %.2f s, %.0f adds/s sustained\n", adding_s, adds / adding_s);
  std::printf(
      "  processed: %lld keys (%.1f%% of adds; the rest were duplicates of queued "
      "keys), %.0f keys/s; all done after %.2f s\n",
      static_cast<long long>(processed.load()), 100.0 * processed / adds, processed / total_s,
      total_s);
  return processed > 0 ? 0 : 1;
}
