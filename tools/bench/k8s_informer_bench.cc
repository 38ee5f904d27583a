// Informer cost per 10,000 cached pods, fed by a real API server (the kubeconfig in
// $KUBECONFIG, e.g. the test environment's): creates the pods (small, Pending forever:
// there is no kubelet) in namespace tidepool-bench, then measures an informer's initial
// list + cache (RSS delta, CPU, wall time), and the CPU per watch event through the same
// parse + cache path (ParseWatchEvent + Informer::HandleEvent) by replaying the listed
// pods as MODIFIED events. Deletes the pods at the end unless --keep. Not run by ctest.
//
//   KUBECONFIG=/run/tidepool/k8s/admin.kubeconfig k8s_informer_bench [pods=10000] [--keep]
#include <malloc.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/errors.h"
#include "k8s/informer.h"
#include "k8s/watch.h"

namespace {

using tidepool::k8s::Client;
using tidepool::k8s::Informer;
using tidepool::k8s::Pods;

constexpr char kNamespace[] = "tidepool-bench";
constexpr char kSelector[] = "tidepool-bench=informer";
constexpr int kCreateThreads = 8;

// Resident set size from /proc/self/status (VmRSS or VmHWM), in bytes.
int64_t ProcStatusBytes(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (!absl::StartsWith(line, field + ":")) continue;
    int64_t kb = 0;
    std::string number = line.substr(field.size() + 1);
    number.erase(number.find(" kB"));
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(number), &kb)) return kb * 1024;
  }
  return -1;
}

// Resets VmHWM so the peak of the informer's start is measured, not pod creation's.
void ResetPeakRss() { std::ofstream("/proc/self/clear_refs") << "5"; }

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
         usage.ru_stime.tv_usec / 1e6;
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string PodJson(int i) {
  return absl::StrCat(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"bench-pod-)", i,
      R"(","labels":{"tidepool-bench":"informer","slurm.tidepool.dev/node":"n-)", i % 1000,
      R"("}},"spec":{"automountServiceAccountToken":false,"containers":[{"name":"main",)"
      R"("image":"registry.invalid/bench:1","resources":{"requests":{"cpu":"100m"}}}]}})");
}

// How many pods the bench namespace holds: one item and the server's count of the rest
// (which it gives only for lists without a selector; only bench pods live there).
int64_t ExistingPods(Client& client) {
  absl::StatusOr<tidepool::k8s::ListResult> page = client.List(Pods(), kNamespace, {.limit = 1});
  if (!page.ok()) return 0;
  return static_cast<int64_t>(page->items.size()) + page->remaining_item_count.value_or(0);
}

// Creates what is missing of bench-pod-0..n-1 (earlier --keep runs leave them).
bool CreatePods(Client& client, int n) {
  const auto start = std::chrono::steady_clock::now();
  if (ExistingPods(client) == n) {
    std::printf("setup: the %d pods of an earlier --keep run are there\n", n);
    return true;
  }
  std::atomic<int> next{0};
  std::atomic<int> created{0};
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kCreateThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = next++; i < n; i = next++) {
        const absl::Status s = client.Create(Pods(), kNamespace, PodJson(i)).status();
        if (s.ok()) {
          ++created;
        } else if (!absl::IsAlreadyExists(s) && failed++ == 0) {
          std::fprintf(stderr, "create bench-pod-%d: %s\n", i, s.ToString().c_str());
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::printf("setup: %d pods created (%d already there) in %.1f s with %d threads\n",
              created.load(), n - created.load() - failed.load(), Since(start), kCreateThreads);
  return failed == 0;
}

bool EnsureNamespaceAndServiceAccount(Client& client) {
  // Without kube-controller-manager nobody makes the "default" ServiceAccount, and the
  // ServiceAccount admission plugin refuses pods until it exists.
  const absl::Status ns =
      client
          .Create(tidepool::k8s::Namespaces(), "",
                  absl::StrCat(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")",
                               kNamespace, R"("}})"))
          .status();
  const absl::Status sa =
      client
          .Create(tidepool::k8s::ResourceType{"", "v1", "serviceaccounts", true}, kNamespace,
                  R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}})")
          .status();
  for (const absl::Status& s : {ns, sa}) {
    if (!s.ok() && !absl::IsAlreadyExists(s)) {
      std::fprintf(stderr, "setup: %s\n", s.ToString().c_str());
      return false;
    }
  }
  return true;
}

void DeletePods(Client& client) {
  const auto start = std::chrono::steady_clock::now();
  // DELETE on the collection; unscheduled pods go at once (no kubelet to wait for).
  const absl::Status s =
      client
          .Call({.method = "DELETE",
                 .path = absl::StrCat("/api/v1/namespaces/", kNamespace,
                                      "/pods?labelSelector=tidepool-bench%3Dinformer"),
                 .timeout = absl::Minutes(5)})
          .status();
  std::printf("cleanup: pods deleted in %.1f s%s\n", Since(start),
              s.ok() ? "" : (" FAILED: " + s.ToString()).c_str());
}

// The CPU per event of the watch path, without the server: each cached pod replayed as a
// MODIFIED event line through parsing and the cache.
void MeasureEventPath(Informer& informer) {
  std::vector<std::string> lines;
  for (const auto& object : informer.List()) {
    lines.push_back(absl::StrCat(R"({"type":"MODIFIED","object":)", object->json, "}"));
  }
  const double cpu_start = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& line : lines) {
    absl::StatusOr<tidepool::k8s::WatchEvent> event = tidepool::k8s::ParseWatchEvent(line);
    if (event.ok()) informer.HandleEvent(*event);
  }
  const double cpu = ThreadCpuSeconds() - cpu_start;
  std::printf(
      "watch path (recorded events replayed: parse + cache update): %zu events, "
      "%.3f s CPU, %.1f us CPU/event, %.0f events/s\n",
      lines.size(), cpu, cpu / lines.size() * 1e6, lines.size() / Since(start));
}

}  // namespace

int main(int argc, char** argv) {
  int pods = 10000;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--keep") {
      keep = true;
    } else if (!absl::SimpleAtoi(argv[i], &pods) || pods <= 0) {
      std::fprintf(stderr, "usage: k8s_informer_bench [pods>0] [--keep]\n");
      return 2;
    }
  }
  absl::StatusOr<tidepool::k8s::ClientConfig> config = tidepool::k8s::DefaultConfig();
  if (!config.ok()) {
    std::fprintf(stderr, "no Kubernetes config (set KUBECONFIG): %s\n",
                 config.status().ToString().c_str());
    return 1;
  }
  config->qps = 0;  // measure the informer, not the client's rate limit
  config->timeout = absl::Minutes(2);
  Client client(*config);
  if (!EnsureNamespaceAndServiceAccount(client) || !CreatePods(client, pods)) return 1;

  malloc_trim(0);  // give back what pod creation freed, so the delta is the informer's
  ResetPeakRss();
  const int64_t rss_before = ProcStatusBytes("VmRSS");
  const double cpu_before = ProcessCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  Informer informer(client, Pods(), kNamespace, {.label_selector = kSelector});
  informer.Start();
  if (!informer.WaitForSync(absl::Minutes(5))) {
    std::fprintf(stderr, "informer did not sync within 5 minutes\n");
    return 1;
  }
  const double sync_s = Since(start);
  const double cpu = ProcessCpuSeconds() - cpu_before;
  const int64_t peak = ProcStatusBytes("VmHWM");
  malloc_trim(0);  // the list's transient buffers are gone; what stays is the cache
  const int64_t rss_after = ProcStatusBytes("VmRSS");
  const std::vector<tidepool::k8s::CachedObjectPtr> cached = informer.List();
  size_t json_bytes = 0;
  for (const auto& object : cached) json_bytes += object->json.size();
  const double per_10k = 10000.0 / cached.size();
  std::printf("informer fed by a real API server: %zu pods cached (avg %zu bytes of JSON each)\n",
              cached.size(), json_bytes / std::max<size_t>(cached.size(), 1));
  std::printf(
      "initial list + cache: %.2f s wall, %.2f s CPU (process) = %.2f s CPU per 10,000 pods\n",
      sync_s, cpu, cpu * per_10k);
  std::printf(
      "RSS: %.1f MB before, %.1f MB after sync (+%.1f MB = %.1f MB per 10,000 pods), "
      "peak during the list %.1f MB\n",
      rss_before / 1e6, rss_after / 1e6, (rss_after - rss_before) / 1e6,
      (rss_after - rss_before) / 1e6 * per_10k, peak / 1e6);
  informer.Stop();
  MeasureEventPath(informer);
  if (cached.size() != static_cast<size_t>(pods)) {
    std::fprintf(stderr, "expected %d pods in the cache, got %zu\n", pods, cached.size());
  }
  if (!keep) DeletePods(client);
  return cached.size() == static_cast<size_t>(pods) ? 0 : 1;
}
