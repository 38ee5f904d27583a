// Pods through the running pod-scheduler (tools/bench/pod-scheduler-bench starts the
// system): creates `pods` pods for `scheduler` in `namespace` from `threads` threads,
// `rate` pods per second in all (0: as fast as the API server takes them), watches them,
// and prints created → bound (the moment a watch sees spec.nodeName) p50/p90/p99/max and
// the sustained rate of binds. Deletes the pods at the end. Prints numbers; not run by
// ctest.
//
//   KUBECONFIG=… pod_scheduler_bench namespace scheduler [pods=500] [threads=4] [rate=0]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/object_json.h"
#include "k8s/watch.h"
#include "tidepool/contract.h"

namespace {

using Clock = std::chrono::steady_clock;
using tidepool::k8s::Client;
using tidepool::k8s::Pods;

struct Timeline {
  absl::Mutex mutex;
  std::map<std::string, Clock::time_point> created ABSL_GUARDED_BY(mutex);
  std::map<std::string, Clock::time_point> create_returned ABSL_GUARDED_BY(mutex);
  // When a watch first shows the pod-scheduler's job-id annotation: the job was submitted.
  std::map<std::string, Clock::time_point> annotated ABSL_GUARDED_BY(mutex);
  std::map<std::string, Clock::time_point> bound ABSL_GUARDED_BY(mutex);
};

std::string PodName(int i) { return absl::StrCat("bench-", i); }

std::string PodJson(const std::string& name, const std::string& scheduler) {
  return absl::StrCat(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", name,
                      R"(","annotations":{"tidepool.dev/time-limit":"30"}},)",
                      R"("spec":{"schedulerName":")", scheduler,
                      R"(","terminationGracePeriodSeconds":0,)",
                      R"("containers":[{"name":"work","image":"example.invalid/work",)",
                      R"("resources":{"requests":{"cpu":"1","memory":"64Mi"}}}]}})");
}

struct PodProgress {
  bool has_job_id = false;
  bool bound = false;
};

PodProgress ProgressOf(const std::string& pod_json) {
  absl::StatusOr<rapidjson::Document> pod = tidepool::k8s::ParseJsonObject(pod_json, "pod");
  if (!pod.ok()) {
    return {};
  }
  PodProgress progress;
  if (const rapidjson::Value* meta = tidepool::k8s::FindMember(*pod, "metadata")) {
    if (const rapidjson::Value* annotations = tidepool::k8s::FindMember(*meta, "annotations")) {
      progress.has_job_id =
          !tidepool::k8s::StringMember(*annotations, tidepool::api::kSlurmJobIdAnnotation).empty();
    }
  }
  if (const rapidjson::Value* spec = tidepool::k8s::FindMember(*pod, "spec")) {
    progress.bound = !tidepool::k8s::StringMember(*spec, "nodeName").empty();
  }
  return progress;
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> sorted, double p) {
  if (sorted.empty()) return 0;
  const auto at = static_cast<size_t>(std::lround(p * static_cast<double>(sorted.size() - 1)));
  return sorted[std::min(at, sorted.size() - 1)];
}

using Moments = std::map<std::string, Clock::time_point>;

// p50/p90/p99/max of `to` - `from` over the pods in both.
void PrintStage(const char* label, const Moments& from, const Moments& to) {
  std::vector<double> took;
  for (const auto& [name, at] : to) {
    auto start = from.find(name);
    if (start != from.end()) {
      took.push_back(Ms(at - start->second));
    }
  }
  std::sort(took.begin(), took.end());
  std::printf("%-18s p50 %.0f ms  p90 %.0f ms  p99 %.0f ms  max %.0f ms\n", label,
              Percentile(took, 0.50), Percentile(took, 0.90), Percentile(took, 0.99),
              took.empty() ? 0.0 : took.back());
}

// Creates pods i ≡ t (mod threads), pod i not before `start + i / rate`; returns how
// many failed.
int CreateShare(Client& client, const std::string& ns, const std::string& scheduler, int pods,
                int threads, int t, double rate, Clock::time_point start, Timeline& timeline) {
  int failed = 0;
  for (int i = t; i < pods; i += threads) {
    const std::string name = PodName(i);
    if (rate > 0) {
      std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(i / rate)));
    }
    const Clock::time_point started = Clock::now();
    absl::Status created = client.Create(Pods(), ns, PodJson(name, scheduler)).status();
    if (!created.ok()) {
      if (failed++ == 0)
        std::fprintf(stderr, "creating %s: %s\n", name.c_str(), created.ToString().c_str());
      continue;
    }
    const Clock::time_point returned = Clock::now();
    absl::MutexLock lock(&timeline.mutex);
    timeline.created[name] = started;
    timeline.create_returned[name] = returned;
  }
  return failed;
}

void Report(Timeline& timeline, Clock::time_point first_create, int pods) {
  absl::MutexLock lock(&timeline.mutex);
  std::vector<double> latencies;
  Clock::time_point last_bound = first_create;
  Clock::time_point first_bound = Clock::time_point::max();
  for (const auto& [name, at] : timeline.bound) {
    auto created = timeline.created.find(name);
    if (created == timeline.created.end()) continue;
    latencies.push_back(Ms(at - created->second));
    last_bound = std::max(last_bound, at);
    first_bound = std::min(first_bound, at);
  }
  std::sort(latencies.begin(), latencies.end());
  const double window_s = Ms(last_bound - first_create) / 1000;
  std::printf("pods created %zu of %d, bound %zu\n", timeline.created.size(), pods,
              latencies.size());
  std::printf("created -> bound   p50 %.0f ms  p90 %.0f ms  p99 %.0f ms  max %.0f ms\n",
              Percentile(latencies, 0.50), Percentile(latencies, 0.90), Percentile(latencies, 0.99),
              latencies.empty() ? 0.0 : latencies.back());
  // Where the time went: the API server's create, the pod-scheduler until its job-id
  // annotation shows (pod watched, job submitted, annotation written), Slurm starting the
  // job and the binding.
  PrintStage("  create call", timeline.created, timeline.create_returned);
  PrintStage("  created -> job id", timeline.created, timeline.annotated);
  PrintStage("  job id -> bound", timeline.annotated, timeline.bound);
  std::printf("sustained          %.1f pods/s bound (first create -> last bind %.2f s)\n",
              window_s > 0 ? static_cast<double>(latencies.size()) / window_s : 0.0, window_s);
  // The rate the binds kept up, without the latency of the first and last pod (which the
  // line above counts once: a 10 s stream at 50/s can show at most 500 / (10 s + p50)).
  if (latencies.size() > 1) {
    const double binding_s = Ms(last_bound - first_bound) / 1000;
    std::printf("bind rate          %.1f pods/s (first bind -> last bind %.2f s)\n",
                binding_s > 0 ? static_cast<double>(latencies.size() - 1) / binding_s : 0.0,
                binding_s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: pod_scheduler_bench namespace scheduler [pods] [threads] [rate]\n");
    return 2;
  }
  const std::string ns = argv[1];
  const std::string scheduler = argv[2];
  const int pods = argc > 3 ? std::atoi(argv[3]) : 500;
  const int threads = argc > 4 ? std::atoi(argv[4]) : 4;
  const double rate = argc > 5 ? std::atof(argv[5]) : 0;
  if (pods <= 0 || threads <= 0 || rate < 0) {
    std::fprintf(stderr, "pods and threads must be positive, rate not negative\n");
    return 2;
  }
  absl::StatusOr<tidepool::k8s::ClientConfig> config = tidepool::k8s::DefaultConfig();
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 1;
  }
  config->qps = 0;  // the bench must not be what limits the rate
  Client client(*config);

  Timeline timeline;
  std::atomic<bool> synced{false};
  tidepool::k8s::BackgroundWatch watch(
      client, Pods(), ns, {.keep_object_json = false}, [&](const tidepool::k8s::WatchEvent& event) {
        if (event.type == tidepool::k8s::WatchEventType::kSynced) synced = true;
        if (event.type != tidepool::k8s::WatchEventType::kAdded &&
            event.type != tidepool::k8s::WatchEventType::kModified) {
          return;
        }
        const PodProgress progress = ProgressOf(event.object_json);
        const Clock::time_point now = Clock::now();
        absl::MutexLock lock(&timeline.mutex);
        if (progress.has_job_id) {
          timeline.annotated.try_emplace(event.meta.name, now);
        }
        if (progress.bound) {
          timeline.bound.try_emplace(event.meta.name, now);
        }
      });
  while (!synced) std::this_thread::sleep_for(std::chrono::milliseconds(20));

  const Clock::time_point first_create = Clock::now();
  std::atomic<int> failed{0};
  std::vector<std::thread> creators;
  creators.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    creators.emplace_back([&, t] {
      failed += CreateShare(client, ns, scheduler, pods, threads, t, rate, first_create, timeline);
    });
  }
  for (std::thread& creator : creators) creator.join();
  std::printf("created %d pods in %.2f s (%d failed)\n", pods - failed.load(),
              Ms(Clock::now() - first_create) / 1000, failed.load());

  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(300);
  while (Clock::now() < deadline) {
    {
      absl::MutexLock lock(&timeline.mutex);
      if (timeline.bound.size() >= timeline.created.size()) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  watch.Stop();
  Report(timeline, first_create, pods);

  for (int i = 0; i < pods; ++i) (void)client.Delete(Pods(), ns, PodName(i));
  return 0;
}
