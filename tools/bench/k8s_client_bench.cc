// Request latency of the Kubernetes client against a running API server (the kubeconfig
// in $KUBECONFIG, e.g. the test environment's): sequential GETs, concurrent GETs, and
// creates + deletes of ConfigMaps. Prints timings; not run by ctest.
//
//   KUBECONFIG=/run/tidepool/k8s/admin.kubeconfig k8s_client_bench [requests=200] [threads=4]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/errors.h"

namespace {

using tidepool::k8s::Client;
using tidepool::k8s::ConfigMaps;

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Report(const char* what, int requests, double seconds) {
  std::printf("%-28s %5d requests  %7.3f s  %8.0f req/s  %6.2f ms/req\n", what, requests, seconds,
              requests / seconds, 1000 * seconds / requests);
}

}  // namespace

int main(int argc, char** argv) {
  const int requests = argc > 1 ? std::atoi(argv[1]) : 200;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 4;
  if (requests <= 0 || threads <= 0) {
    std::fprintf(stderr, "usage: k8s_client_bench [requests>0] [threads>0]\n");
    return 2;
  }
  absl::StatusOr<tidepool::k8s::ClientConfig> config = tidepool::k8s::DefaultConfig();
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 1;
  }
  config->qps = 0;  // measure the server and the transport, not the limiter
  Client client(*config);

  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < requests; ++i) {
    absl::Status s = client.Get(ConfigMaps(), "default", "k8s-client-bench-absent").status();
    if (!absl::IsNotFound(s)) {
      std::fprintf(stderr, "GET: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  Report("GET (404), sequential", requests, Seconds(start));

  std::atomic<int> failures{0};
  start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = t; i < requests; i += threads) {
        if (!absl::IsNotFound(
                client.Get(ConfigMaps(), "default", "k8s-client-bench-absent").status())) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& w : workers) w.join();
  Report(absl::StrCat("GET (404), ", threads, " threads").c_str(), requests, Seconds(start));

  const std::string prefix = absl::StrCat("k8s-client-bench-", getpid(), "-");
  const int writes = std::min(requests, 100);
  start = std::chrono::steady_clock::now();
  for (int i = 0; i < writes; ++i) {
    const std::string body =
        absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap",)", R"("metadata":{"name":")", prefix,
                     i, R"("},"data":{"i":")", i, R"("}})");
    if (!client.Create(ConfigMaps(), "default", body).ok()) ++failures;
  }
  Report("CREATE, sequential", writes, Seconds(start));
  start = std::chrono::steady_clock::now();
  for (int i = 0; i < writes; ++i) {
    if (!client.Delete(ConfigMaps(), "default", absl::StrCat(prefix, i)).ok()) ++failures;
  }
  Report("DELETE, sequential", writes, Seconds(start));
  if (failures > 0) {
    std::fprintf(stderr, "%d requests failed\n", failures.load());
    return 1;
  }
  return 0;
}
