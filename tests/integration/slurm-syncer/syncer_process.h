#pragma once

// slurm-syncer as integration tests start it: a child process on free loopback ports
// with a gRPC stub, and the Slurm test environment helpers the tests share.

#include <catch2/catch_test_macros.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "support/child_process.h"
#include "support/http_get.h"
#include "support/ports.h"
#include "support/testenv.h"
#include "tidepool/v1/syncer.grpc.pb.h"

namespace tidepool::testing {

inline SlurmEnv RequireSlurm() {
  absl::StatusOr<SlurmEnv> env = Slurm();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  return *std::move(env);
}

inline std::string SyncerBinary() {
  const char* path = std::getenv("TIDEPOOL_SLURM_SYNCER");
  REQUIRE(path != nullptr);
  return path;
}

inline void RequireExec(const SlurmEnv& env, const std::vector<std::string>& args) {
  absl::StatusOr<CommandResult> r = SlurmExec(env, args);
  REQUIRE(r.ok());
  INFO(absl::StrJoin(args, " ") << ": " << r->output);
  REQUIRE(r->exit_code == 0);
}

inline void RequireRestTool(const SlurmEnv& env, const std::string& argument) {
  absl::StatusOr<CommandResult> r =
      RunCommand({SourceRoot() + "/tools/testenv/slurm/restart-rest", argument}, absl::Seconds(60));
  REQUIRE(r.ok());
  INFO("restart-rest " << argument << ": " << r->output << " (" << env.suite << ")");
  REQUIRE(r->exit_code == 0);
}

// A slurm-syncer process on free loopback ports, and a stub to talk to it.
// Puts a node back to idle with no reason, whatever an earlier test left: UNDRAIN keeps
// a reason on Slurm 24.11, and RESUME is refused for a node that is not drained or down.
inline void ResetSlurmNode(const SlurmEnv& env, const std::string& node) {
  (void)SlurmExec(env,
                  {"scontrol", "update", "nodename=" + node, "state=drain", "reason=test reset"});
  (void)SlurmExec(env, {"scontrol", "update", "nodename=" + node, "state=resume"});
}

// The end of a process's output, for failure messages (debug logs are long).
inline std::string OutputTail(const std::string& output, size_t bytes = 4000) {
  return output.size() <= bytes ? output : "…" + output.substr(output.size() - bytes);
}

// Stops slurmrestd for the life of this object; starts it again on destruction even when
// an assertion failed in between, so later tests find it up.
class SlurmRestOutage {
 public:
  explicit SlurmRestOutage(const SlurmEnv& env) : env_(env) { RequireRestTool(env_, "--stop"); }
  ~SlurmRestOutage() { End(); }
  // Starts slurmrestd again now.
  void End() {
    if (ended_) return;
    ended_ = true;
    (void)RunCommand({SourceRoot() + "/tools/testenv/slurm/restart-rest", "--start"},
                     absl::Seconds(60));
  }

 private:
  const SlurmEnv& env_;
  bool ended_ = false;
};

class Syncer {
 public:
  explicit Syncer(std::vector<std::string> slurm_args) {
    grpc_port_ = FreeLoopbackPort().value();
    http_port_ = FreeLoopbackPort().value();
    std::vector<std::string> args = {"--listen_address=127.0.0.1",
                                     absl::StrCat("--grpc_port=", grpc_port_),
                                     absl::StrCat("--http_port=", http_port_),
                                     "--node_poll_interval=1s",
                                     "--job_poll_interval=500ms",
                                     "--slurm_rest_timeout=5s",
                                     "--shutdown_timeout=10s",
                                     "--log_level=debug",
                                     "--sync_kubernetes=false"};
    args.insert(args.end(), slurm_args.begin(), slurm_args.end());
    absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(SyncerBinary(), args);
    REQUIRE(process.ok());
    process_.emplace(*std::move(process));
    stub_ = v1::SlurmSyncer::NewStub(grpc::CreateChannel(absl::StrCat("127.0.0.1:", grpc_port_),
                                                         grpc::InsecureChannelCredentials()));
  }

  static std::vector<std::string> JwtArgs(const SlurmEnv& env) {
    return {"--slurm_rest_url=" + env.rest_url, "--slurm_jwt_key_file=" + env.jwt_key_file,
            "--slurm_jwt_user=" + env.token_user};
  }

  v1::SlurmSyncer::Stub& stub() { return *stub_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", grpc_port_); }
  ChildProcess& process() { return *process_; }
  std::string Output() const { return process_->Output(); }

  // Waits until /readyz says 200 (the first node poll is done).
  void AwaitReady(absl::Duration timeout = absl::Seconds(20)) {
    const absl::Time deadline = absl::Now() + timeout;
    int status = 0;
    while (absl::Now() < deadline) {
      absl::StatusOr<HttpResponse> ready =
          HttpGet(absl::StrCat("http://127.0.0.1:", http_port_, "/readyz"));
      if (ready.ok() && (status = ready->status) == 200) return;
      absl::SleepFor(absl::Milliseconds(100));
    }
    INFO(OutputTail(Output()));
    FAIL("slurm-syncer not ready within " << absl::FormatDuration(timeout) << ", last " << status);
  }

  absl::StatusOr<HttpResponse> Get(absl::string_view path) {
    return HttpGet(absl::StrCat("http://127.0.0.1:", http_port_, path));
  }

 private:
  uint16_t grpc_port_ = 0;
  uint16_t http_port_ = 0;
  std::optional<ChildProcess> process_;
  std::unique_ptr<v1::SlurmSyncer::Stub> stub_;
};

inline std::unique_ptr<grpc::ClientContext> Deadline(absl::Duration timeout = absl::Seconds(30)) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  return context;
}

// The node fresh from Slurm, through the syncer.
inline v1::SlurmNode RequireNode(Syncer& syncer, const std::string& name) {
  v1::GetNodesRequest request;
  request.set_fresh(true);
  request.add_names(name);
  v1::GetNodesResponse response;
  grpc::Status status = syncer.stub().GetNodes(Deadline().get(), request, &response);
  INFO(status.error_message());
  REQUIRE(status.ok());
  REQUIRE(response.nodes_size() == 1);
  return response.nodes(0);
}

}  // namespace tidepool::testing
