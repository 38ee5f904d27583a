// Each service binary, started as its own process, must report gRPC health, expose
// metrics and probes, end cleanly on SIGTERM, and refuse bad flags and busy ports.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "support/child_process.h"
#include "support/exposition.h"
#include "support/http_get.h"
#include "support/ports.h"
#include "tidepool/v1/info.grpc.pb.h"

namespace tidepool::testing {
namespace {

using ::grpc::health::v1::HealthCheckResponse;

// TIDEPOOL_SERVICE_BINARIES="name=/path:name=/path", set by CMake.
std::map<std::string, std::string> ServiceBinaries() {
  std::map<std::string, std::string> binaries;
  const char* value = std::getenv("TIDEPOOL_SERVICE_BINARIES");
  if (value == nullptr) return binaries;
  for (absl::string_view entry : absl::StrSplit(value, ':', absl::SkipEmpty())) {
    std::pair<std::string, std::string> pair = absl::StrSplit(entry, absl::MaxSplits('=', 1));
    binaries.insert(pair);
  }
  return binaries;
}

std::string BinaryFor(const std::string& service) {
  static const std::map<std::string, std::string> binaries = ServiceBinaries();
  auto it = binaries.find(service);
  REQUIRE(it != binaries.end());
  return it->second;
}

struct RunningService {
  ChildProcess process;
  uint16_t grpc_port;
  uint16_t http_port;
};

// The flags a service needs besides the common ones. The syncer points at a port where
// no slurmrestd listens: it must serve anyway and report itself unready.
// A kubeconfig for an API server that is not there: controllers must serve anyway and
// report themselves unready until their caches sync.
std::string UnreachableKubeconfig() {
  static const std::string path = [] {
    const std::string file =
        std::filesystem::temp_directory_path() / absl::StrCat("service-test-kubeconfig-", getpid());
    std::ofstream(file) << "apiVersion: v1\nkind: Config\ncurrent-context: none\n"
                        << "clusters: [{name: none, cluster: {server: 'https://127.0.0.1:"
                        << FreeLoopbackPort().value() << "', insecure-skip-tls-verify: true}}]\n"
                        << "users: [{name: none, user: {token: none}}]\n"
                        << "contexts: [{name: none, context: {cluster: none, user: none}}]\n";
    return file;
  }();
  return path;
}

bool NeedsKubernetes(const std::string& service) {
  return service == "cluster-controller" || service == "nodeset-controller" ||
         service == "pod-scheduler";
}

std::vector<std::string> ServiceSpecificArgs(const std::string& service) {
  if (service == "pod-scheduler") {  // no API server and no slurm-syncer: unready
    return {"--kubeconfig=" + UnreachableKubeconfig(), "--leader_elect=false",
            "--slurm_cluster=hpc/research",
            absl::StrCat("--syncer_address=127.0.0.1:", FreeLoopbackPort().value())};
  }
  if (NeedsKubernetes(service)) {
    return {"--kubeconfig=" + UnreachableKubeconfig(), "--leader_elect=false"};
  }
  if (service == "slurm-syncer") {
    return {absl::StrCat("--slurm_rest_url=http://127.0.0.1:", FreeLoopbackPort().value()),
            "--slurm_token_file=/nonexistent/token", "--sync_kubernetes=false"};
  }
  return {};
}

RunningService StartService(const std::string& service) {
  const uint16_t grpc_port = FreeLoopbackPort().value();
  const uint16_t http_port = FreeLoopbackPort().value();
  std::vector<std::string> args = {
      "--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc_port),
      absl::StrCat("--http_port=", http_port), "--shutdown_timeout=5s"};
  for (std::string& arg : ServiceSpecificArgs(service)) args.push_back(std::move(arg));
  auto process = ChildProcess::Spawn(BinaryFor(service), args);
  REQUIRE(process.ok());
  return RunningService{std::move(*process), grpc_port, http_port};
}

// Polls gRPC health until SERVING or the deadline; returns the last status seen.
HealthCheckResponse::ServingStatus AwaitServing(uint16_t port, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  HealthCheckResponse::ServingStatus last = HealthCheckResponse::UNKNOWN;
  while (absl::Now() < deadline) {
    // A fresh channel per attempt: a channel that failed once waits out its reconnect backoff.
    auto stub = grpc::health::v1::Health::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
    HealthCheckResponse response;
    if (stub->Check(&context, {}, &response).ok()) {
      last = response.status();
      if (last == HealthCheckResponse::SERVING) break;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  return last;
}

TEST_CASE("each service serves health, info, metrics and probes, and stops on SIGTERM") {
  const std::string service = GENERATE(as<std::string>{}, "config-renderer", "slurm-syncer",
                                       "nodeset-controller", "cluster-controller", "pod-scheduler");
  CAPTURE(service);
  RunningService running = StartService(service);
  REQUIRE(AwaitServing(running.grpc_port, absl::Seconds(15)) == HealthCheckResponse::SERVING);

  {  // the channel closes before SIGTERM, so shutdown needs no grace for it
    auto info_stub = tidepool::v1::InfoService::NewStub(grpc::CreateChannel(
        absl::StrCat("127.0.0.1:", running.grpc_port), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    tidepool::v1::ServiceInfo info;
    REQUIRE(info_stub->GetServiceInfo(&context, {}, &info).ok());
    CHECK(info.name() == service);
  }

  const std::string base = absl::StrCat("http://127.0.0.1:", running.http_port);
  auto metrics = HttpGet(base + "/metrics");
  REQUIRE(metrics.ok());
  CHECK(metrics->status == 200);
  const absl::Status valid = ValidateExposition(metrics->body);
  CHECK(valid.ok());
  CAPTURE(valid.ToString());
  std::string metric_prefix = absl::StrCat("tidepool_", service, "_build_info");
  std::replace(metric_prefix.begin(), metric_prefix.end(), '-', '_');
  CHECK(metrics->body.find(metric_prefix + "{version=") != std::string::npos);
  CHECK(HttpGet(base + "/healthz")->status == 200);
  auto ready = HttpGet(base + "/readyz");
  REQUIRE(ready.ok());
  if (service == "slurm-syncer") {
    CHECK(ready->status == 503);  // no slurmrestd to read nodes from
    CHECK(ready->body.find("slurm") != std::string::npos);
  } else if (NeedsKubernetes(service)) {
    CHECK(ready->status == 503);  // no API server to fill the caches from
  } else {
    CHECK(ready->status == 200);
  }

  REQUIRE(running.process.Signal(SIGTERM).ok());
  auto exit_code = running.process.WaitForExit(absl::Seconds(10));
  REQUIRE(exit_code.ok());
  CHECK(*exit_code == 0);
  const std::string output = running.process.Output();
  CHECK(output.find("event=stopping signal=Terminated") != std::string::npos);
  CHECK(output.find("event=stopped") != std::string::npos);
}

TEST_CASE("each service refuses invalid flags with a message and exit code 2") {
  const std::string service = GENERATE(as<std::string>{}, "config-renderer", "slurm-syncer",
                                       "nodeset-controller", "cluster-controller", "pod-scheduler");
  CAPTURE(service);
  auto process = ChildProcess::Spawn(BinaryFor(service), {"--grpc_port=70000"});
  REQUIRE(process.ok());
  auto exit_code = process->WaitForExit(absl::Seconds(10));
  REQUIRE(exit_code.ok());
  CHECK(*exit_code == 2);
  CHECK(process->Output().find("--grpc_port=70000 is not a TCP port; use 1-65535") !=
        std::string::npos);
}

TEST_CASE("a service refuses unknown flags and stray arguments") {
  auto unknown = ChildProcess::Spawn(BinaryFor("slurm-syncer"), {"--no_such_flag=1"});
  REQUIRE(unknown.ok());
  auto unknown_exit = unknown->WaitForExit(absl::Seconds(10));
  REQUIRE(unknown_exit.ok());
  CHECK(*unknown_exit != 0);
  CHECK(unknown->Output().find("no_such_flag") != std::string::npos);

  auto stray = ChildProcess::Spawn(BinaryFor("slurm-syncer"), {"extra"});
  REQUIRE(stray.ok());
  auto stray_exit = stray->WaitForExit(absl::Seconds(10));
  REQUIRE(stray_exit.ok());
  CHECK(*stray_exit == 2);
  CHECK(stray->Output().find("unexpected argument \\\"extra\\\"") != std::string::npos);
}

TEST_CASE("a service exits 1 with a clear message when its port is in use") {
  auto occupied = OccupiedPort::Bind();
  REQUIRE(occupied.ok());
  const uint16_t free_port = FreeLoopbackPort().value();
  const bool grpc_busy = GENERATE(true, false);
  const uint16_t grpc_port = grpc_busy ? occupied->port() : free_port;
  const uint16_t http_port = grpc_busy ? free_port : occupied->port();
  auto process =
      ChildProcess::Spawn(BinaryFor("config-renderer"),
                          {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc_port),
                           absl::StrCat("--http_port=", http_port)});
  REQUIRE(process.ok());
  auto exit_code = process->WaitForExit(absl::Seconds(10));
  REQUIRE(exit_code.ok());
  CHECK(*exit_code == 1);
  const std::string expected = absl::StrCat(
      grpc_busy ? "cannot serve gRPC on 127.0.0.1:" : "cannot serve HTTP on 127.0.0.1:",
      occupied->port());
  CHECK(process->Output().find(expected) != std::string::npos);
}

}  // namespace
}  // namespace tidepool::testing
