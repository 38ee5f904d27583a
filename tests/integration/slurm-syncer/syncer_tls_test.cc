// slurm-syncer with mutual TLS against the real slurmrestd: each gRPC method admits only
// the service the design lets call it, nobody may force by default, and a key file others
// may read stops the syncer from starting.
#include <sys/stat.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/grpc_channel.h"
#include "support/grpc_certs.h"
#include "syncer_process.h"

namespace tidepool::testing {
namespace {

constexpr const char* kIdentities[] = {"slurm-syncer", "nodeset-controller", "cluster-controller",
                                       "pod-scheduler"};

std::string Certificates() {
  static const std::string dir = [] {
    const std::string made =
        (std::filesystem::temp_directory_path() / absl::StrCat("syncer_tls_", getpid())).string();
    REQUIRE(MakeGrpcCertificates(made, {std::begin(kIdentities), std::end(kIdentities)}).ok());
    return made;
  }();
  return dir;
}

// A stub that calls `syncer` as `caller` (empty: plaintext).
std::unique_ptr<v1::SlurmSyncer::Stub> StubAs(const Syncer& syncer, const std::string& caller) {
  common::ChannelOptions options;
  if (!caller.empty()) {
    absl::StatusOr<common::GrpcTls> tls = GrpcIdentity(Certificates(), caller);
    REQUIRE(tls.ok());
    options = {.tls = *tls, .server_name = "slurm-syncer"};
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      common::MakeChannel(syncer.address(), options);
  REQUIRE(channel.ok());
  return v1::SlurmSyncer::NewStub(*channel);
}

grpc::StatusCode Update(v1::SlurmSyncer::Stub& stub, const std::string& node,
                        v1::UpdateNodeRequest::Action action, bool force = false) {
  v1::UpdateNodeRequest request;
  request.set_name(node);
  request.set_action(action);
  if (action == v1::UpdateNodeRequest::DRAIN) request.set_reason("k8s: scale-in");
  request.set_force(force);
  v1::UpdateNodeResponse response;
  return stub.UpdateNode(Deadline().get(), request, &response).error_code();
}

grpc::StatusCode GetNodes(v1::SlurmSyncer::Stub& stub) {
  v1::GetNodesResponse response;
  return stub.GetNodes(Deadline().get(), {}, &response).error_code();
}

grpc::StatusCode GetJob(v1::SlurmSyncer::Stub& stub) {
  v1::GetJobRequest request;
  request.set_job_id(999999);  // no such job: NOT_FOUND once past authorisation
  v1::GetJobResponse response;
  return stub.GetJob(Deadline().get(), request, &response).error_code();
}

v1::SlurmNode FreshNode(v1::SlurmSyncer::Stub& stub, const std::string& name) {
  v1::GetNodesRequest request;
  request.set_fresh(true);
  request.add_names(name);
  v1::GetNodesResponse response;
  const grpc::Status status = stub.GetNodes(Deadline().get(), request, &response);
  INFO(status.error_message());
  REQUIRE(status.ok());
  REQUIRE(response.nodes_size() == 1);
  return response.nodes(0);
}

TEST_CASE("with mutual TLS only nodeset-controller drains, and nobody forces") {
  const SlurmEnv env = RequireSlurm();
  const std::string node = env.node_names.at(1);
  ResetSlurmNode(env, node);
  std::vector<std::string> args = Syncer::JwtArgs(env);
  args.push_back(absl::StrCat("--grpc_tls_dir=", Certificates(), "/slurm-syncer"));
  Syncer syncer(args);
  syncer.AwaitReady();
  auto nodeset = StubAs(syncer, "nodeset-controller");
  auto scheduler = StubAs(syncer, "pod-scheduler");
  auto cluster = StubAs(syncer, "cluster-controller");
  using v1::UpdateNodeRequest;

  SECTION("the drain flow works for nodeset-controller") {
    CHECK(Update(*nodeset, node, UpdateNodeRequest::DRAIN) == grpc::StatusCode::OK);
    CHECK(FreshNode(*nodeset, node).reason() == "k8s: scale-in");
    CHECK(Update(*nodeset, node, UpdateNodeRequest::UNDRAIN) == grpc::StatusCode::OK);
    CHECK_FALSE(FreshNode(*nodeset, node).drain());
  }
  SECTION("the other services may not drain, and Slurm is left as it was") {
    CHECK(Update(*scheduler, node, UpdateNodeRequest::DRAIN) ==
          grpc::StatusCode::PERMISSION_DENIED);
    CHECK(Update(*cluster, node, UpdateNodeRequest::DRAIN) == grpc::StatusCode::PERMISSION_DENIED);
    CHECK_FALSE(FreshNode(*nodeset, node).drain());
  }
  SECTION("a person's drain cannot be forced away, even by nodeset-controller") {
    RequireExec(env, {"scontrol", "update", "nodename=" + node, "state=drain",
                      "reason=bad DIMM, ticket 4711"});
    CHECK(Update(*nodeset, node, UpdateNodeRequest::UNDRAIN, /*force=*/true) ==
          grpc::StatusCode::PERMISSION_DENIED);
    CHECK(FreshNode(*nodeset, node).reason() == "bad DIMM, ticket 4711");
    CHECK(absl::StrContains(syncer.Output(), "force_refused"));
    ResetSlurmNode(env, node);
  }
  SECTION("jobs are the pod-scheduler's, reconfigure and nodes the controllers'") {
    CHECK(GetJob(*scheduler) == grpc::StatusCode::NOT_FOUND);
    CHECK(GetJob(*nodeset) == grpc::StatusCode::PERMISSION_DENIED);
    CHECK(GetJob(*cluster) == grpc::StatusCode::PERMISSION_DENIED);
    CHECK(GetNodes(*cluster) == grpc::StatusCode::OK);
    CHECK(GetNodes(*scheduler) == grpc::StatusCode::PERMISSION_DENIED);
  }
  SECTION("a caller without a certificate does not get through") {
    auto plaintext = StubAs(syncer, "");
    CHECK(GetNodes(*plaintext) == grpc::StatusCode::UNAVAILABLE);
    CHECK(Update(*plaintext, node, UpdateNodeRequest::DRAIN) == grpc::StatusCode::UNAVAILABLE);
  }
}

TEST_CASE("a gRPC key that others may read keeps the syncer from starting") {
  const SlurmEnv env = RequireSlurm();
  const std::string dir = Certificates() + "/slurm-syncer";
  REQUIRE(chmod((dir + "/tls.key").c_str(), 0644) == 0);
  std::vector<std::string> args = Syncer::JwtArgs(env);
  args.push_back("--grpc_tls_dir=" + dir);
  Syncer syncer(args);
  absl::StatusOr<int> exit_code = syncer.process().WaitForExit(absl::Seconds(20));
  REQUIRE(chmod((dir + "/tls.key").c_str(), 0600) == 0);
  REQUIRE(exit_code.ok());
  CHECK(*exit_code == 1);
  INFO(syncer.Output());
  CHECK(absl::StrContains(syncer.Output(), "tls.key has mode 0644"));
}

}  // namespace
}  // namespace tidepool::testing
