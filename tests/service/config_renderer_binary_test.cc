// The config-renderer binary: Render and Validate over gRPC, and its offline commands.
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/grpc_channel.h"
#include "grpcpp/create_channel.h"
#include "support/child_process.h"
#include "support/grpc_certs.h"
#include "support/ports.h"
#include "tidepool/resources.h"
#include "tidepool/v1/renderer.grpc.pb.h"

namespace tidepool::testing {
namespace {

std::string Binary() {
  const char* path = std::getenv("TIDEPOOL_CONFIG_RENDERER");
  REQUIRE(path != nullptr);
  return path;
}

tidepool::v1::RenderRequest SmallRequest() {
  tidepool::v1::RenderRequest request;
  *request.mutable_cluster() = api::ParseSlurmCluster(R"({"apiVersion": "tidepool.dev/v1alpha1",
      "kind": "SlurmCluster", "metadata": {"name": "research", "namespace": "hpc"},
      "spec": {"clusterName": "research"}})")
                                   .value();
  *request.add_node_sets() = api::ParseNodeSet(R"({"apiVersion": "tidepool.dev/v1alpha1",
      "kind": "NodeSet", "metadata": {"name": "h100", "namespace": "hpc"},
      "spec": {"clusterRef": {"name": "research"}, "slurm": {"cpus": 8, "realMemoryMiB": 1000}}})")
                                 .value();
  auto* member = request.add_members();
  member->set_slurm_node_name("h100-01");
  member->set_node_set("h100");
  member->mutable_node()->mutable_metadata()->set_name("node-a");
  return request;
}

struct RunningRenderer {
  ChildProcess process;
  std::unique_ptr<tidepool::v1::ConfigRenderer::Stub> stub;
};

RunningRenderer StartRenderer() {
  const uint16_t grpc_port = FreeLoopbackPort().value();
  const uint16_t http_port = FreeLoopbackPort().value();
  auto process = ChildProcess::Spawn(
      Binary(), {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc_port),
                 absl::StrCat("--http_port=", http_port)});
  REQUIRE(process.ok());
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", grpc_port),
                                     grpc::InsecureChannelCredentials());
  REQUIRE(channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(15)));
  return {std::move(*process), tidepool::v1::ConfigRenderer::NewStub(channel)};
}

// With --grpc_tls_dir only cluster-controller renders; another service of the same CA is
// refused, naming itself, and a caller without a certificate does not connect.
TEST_CASE("config-renderer with mutual TLS renders for cluster-controller alone") {
  const std::string certs =
      (std::filesystem::temp_directory_path() / absl::StrCat("renderer_tls_", getpid())).string();
  REQUIRE(
      MakeGrpcCertificates(certs, {"config-renderer", "cluster-controller", "pod-scheduler"}).ok());
  const uint16_t grpc_port = FreeLoopbackPort().value();
  auto process = ChildProcess::Spawn(
      Binary(), {"--listen_address=127.0.0.1", absl::StrCat("--grpc_port=", grpc_port),
                 absl::StrCat("--http_port=", FreeLoopbackPort().value()),
                 "--grpc_tls_dir=" + certs + "/config-renderer"});
  REQUIRE(process.ok());
  const auto render_as = [&](const std::string& caller) {
    common::ChannelOptions options;
    if (!caller.empty()) {
      options = {.tls = GrpcIdentity(certs, caller).value(), .server_name = "config-renderer"};
    }
    auto channel = common::MakeChannel(absl::StrCat("127.0.0.1:", grpc_port), options);
    REQUIRE(channel.ok());
    // The first call waits for the server to listen; a plaintext one never connects.
    if (!caller.empty()) {
      (*channel)->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10));
    }
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    tidepool::v1::RenderResponse response;
    return tidepool::v1::ConfigRenderer::NewStub(*channel)->Render(&context, SmallRequest(),
                                                                   &response);
  };
  CHECK(render_as("cluster-controller").ok());
  const grpc::Status refused = render_as("pod-scheduler");
  CHECK(refused.error_code() == grpc::StatusCode::PERMISSION_DENIED);
  CHECK(refused.error_message() ==
        "pod-scheduler may not call /tidepool.v1.ConfigRenderer/Render (allowed: "
        "cluster-controller)");
  CHECK(render_as("").error_code() == grpc::StatusCode::UNAVAILABLE);
  INFO(process->Output());
  CHECK(absl::StrContains(process->Output(), "grpc_tls=mutual"));
  CHECK(absl::StrContains(process->Output(), "event=grpc_call_denied"));
}

TEST_CASE("config-renderer renders over gRPC and refuses bad input with INVALID_ARGUMENT") {
  RunningRenderer renderer = StartRenderer();
  {
    grpc::ClientContext context;
    tidepool::v1::RenderResponse response;
    const grpc::Status status = renderer.stub->Render(&context, SmallRequest(), &response);
    REQUIRE(status.ok());
    REQUIRE(response.files_size() == 4);
    CHECK(response.files(0).name() == "slurm.conf");
    CHECK(absl::StrContains(response.files(0).content(),
                            "\nNodeName=h100-01 CPUs=8 RealMemory=1000 State=UNKNOWN\n"));
    CHECK(response.nodes() == 1);
  }
  {
    tidepool::v1::RenderRequest bad = SmallRequest();
    bad.mutable_node_sets(0)->mutable_spec()->mutable_slurm()->set_gres("gpu:8x");
    grpc::ClientContext context;
    tidepool::v1::ValidateResponse response;
    const grpc::Status status = renderer.stub->Validate(&context, bad, &response);
    CHECK(status.error_code() == grpc::StatusCode::INVALID_ARGUMENT);
    CHECK(status.error_message() ==
          "NodeSet hpc/h100: spec.slurm.gres: \"gpu:8x\" is not name:type:count or name:count "
          "(for example gpu:h100:8)");
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_CASE("config-renderer render previews the samples into a directory") {
  const std::string out = "/tmp/tidepool-render-preview-test";
  std::filesystem::remove_all(out);
  const std::string samples = TIDEPOOL_SAMPLES_DIR;
  auto process = ChildProcess::Spawn(
      Binary(), {"render", "--output_dir=" + out, samples + "/slurmcluster-research.yaml",
                 samples + "/nodesets-research.yaml", samples + "/nodes-preview.yaml"});
  REQUIRE(process.ok());
  REQUIRE(process->WaitForExit(absl::Seconds(20)).value() == 0);
  CHECK(absl::StrContains(process->Output(), "config hash sha256:"));
  CHECK(absl::StrContains(ReadFile(out + "/slurm.conf"), "NodeName=gpu-h100-[01-02]"));
  CHECK(
      absl::StrContains(ReadFile(out + "/gres.conf"), "Name=gpu Type=h100 File=/dev/nvidia[0-7]"));
  CHECK(absl::StrContains(ReadFile(out + "/topology.conf"), "SwitchName=fab1 "));
  std::filesystem::remove_all(out);
}

TEST_CASE("config-renderer hostlist expands and compresses, and reports bad expressions") {
  auto expand = ChildProcess::Spawn(Binary(), {"hostlist", "expand", "gpu-[01-03]"});
  REQUIRE(expand.ok());
  REQUIRE(expand->WaitForExit(absl::Seconds(10)).value() == 0);
  CHECK(expand->Output() == "gpu-01\ngpu-02\ngpu-03\n");

  auto compress = ChildProcess::Spawn(Binary(), {"hostlist", "compress", "n3", "n1", "n2", "x"});
  REQUIRE(compress.ok());
  REQUIRE(compress->WaitForExit(absl::Seconds(10)).value() == 0);
  CHECK(compress->Output() == "n[1-3],x\n");

  auto bad = ChildProcess::Spawn(Binary(), {"hostlist", "expand", "n[5-1]"});
  REQUIRE(bad.ok());
  CHECK(bad->WaitForExit(absl::Seconds(10)).value() == 2);
  CHECK(absl::StrContains(bad->Output(), "config-renderer: "));
}

}  // namespace
}  // namespace tidepool::testing
