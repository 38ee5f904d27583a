// Times hostlist expansion and compression on 10,000 names and prints nanoseconds per call
// and per host. The config renderer has 20 ms for 10,000 nodes in total, so compression
// must stay far below that. Usage: hostlist_bench [iterations]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "slurm/hostlist/hostlist.h"

namespace {

using tidepool::slurm::CompressHostNames;
using tidepool::slurm::CompressOptions;
using tidepool::slurm::CountHosts;
using tidepool::slurm::ExpandHostlist;
using tidepool::slurm::HostlistOrder;

constexpr int kHosts = 10'000;

// Runs `work` `iterations` times and prints the mean time per call and per host.
template <typename Work>
void Measure(const char* label, int iterations, Work work) {
  work();  // warm up caches and allocators
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) work();
  const double total_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  const double per_call = total_ns / iterations;
  std::printf("%-44s %12.0f ns/call %8.1f ns/host\n", label, per_call, per_call / kHosts);
}

std::vector<std::string> RackNames() {
  std::vector<std::string> names;
  for (int rack = 1; rack <= 100; ++rack) {
    for (int node = 1; node <= kHosts / 100; ++node) {
      names.push_back(absl::StrCat("rack", rack, "-gpu-", absl::Dec(node, absl::kZeroPad3)));
    }
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  const std::string expression = "gpu-[00001-10000]";
  const std::vector<std::string> in_order = *ExpandHostlist(expression);
  std::vector<std::string> shuffled = in_order;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(42));
  const std::vector<std::string> racks = RackNames();
  std::vector<std::string> racks_shuffled = racks;
  std::shuffle(racks_shuffled.begin(), racks_shuffled.end(), std::mt19937(7));
  std::vector<std::string> every_other;
  for (int i = 0; i < 2 * kHosts; i += 2) every_other.push_back(absl::StrCat("n", i));

  std::printf("%d hosts, %d iterations\n", kHosts, iterations);
  Measure("ExpandHostlist gpu-[00001-10000]", iterations,
          [&] { return ExpandHostlist(expression)->size(); });
  Measure("CountHosts gpu-[00001-10000]", iterations, [&] { return *CountHosts(expression); });
  for (HostlistOrder order : {HostlistOrder::kSorted, HostlistOrder::kAsGiven}) {
    const char* mode = order == HostlistOrder::kSorted ? "sorted" : "as given";
    const CompressOptions options{.order = order};
    Measure(absl::StrCat("Compress ", mode, ", names in order").c_str(), iterations,
            [&] { return CompressHostNames(in_order, options)->size(); });
    Measure(absl::StrCat("Compress ", mode, ", names shuffled").c_str(), iterations,
            [&] { return CompressHostNames(shuffled, options)->size(); });
    Measure(absl::StrCat("Compress ", mode, ", 100 racks shuffled").c_str(), iterations,
            [&] { return CompressHostNames(racks_shuffled, options)->size(); });
    Measure(absl::StrCat("Compress ", mode, ", no neighbours (n0,n2,..)").c_str(), iterations,
            [&] { return CompressHostNames(every_other, options)->size(); });
  }
  return 0;
}
