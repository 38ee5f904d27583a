#include "k8s/config.h"

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "k8s/transport.h"

namespace tidepool::k8s {
namespace {

const std::string kTestdata = TIDEPOOL_K8S_TESTDATA;

std::string Read(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_CASE("kubeconfig: current-context with certificate files relative to the file") {
  absl::StatusOr<ClientConfig> config = LoadKubeconfig(kTestdata + "/kubeconfig-files.yaml");
  INFO(config.status().ToString());
  REQUIRE(config.ok());
  CHECK(config->server == "https://127.0.0.1:16443");  // trailing slash dropped
  CHECK(config->ca_pem == Read(kTestdata + "/ca.crt"));
  CHECK(config->client_cert_pem == Read(kTestdata + "/client.crt"));
  CHECK(config->client_key_pem == Read(kTestdata + "/client.key"));
  CHECK(config->default_namespace == "hpc");
  CHECK(config->token.empty());
  CHECK_FALSE(config->insecure_skip_tls_verify);
}

TEST_CASE("kubeconfig: a named context with a token file, a static token, insecure") {
  absl::StatusOr<ClientConfig> robot =
      LoadKubeconfig(kTestdata + "/kubeconfig-files.yaml", "robot");
  REQUIRE(robot.ok());
  CHECK(robot->token_file == kTestdata + "/token");
  CHECK(robot->client_cert_pem.empty());
  CHECK(robot->default_namespace == "default");

  absl::StatusOr<ClientConfig> insecure =
      LoadKubeconfig(kTestdata + "/kubeconfig-files.yaml", "insecure");
  REQUIRE(insecure.ok());
  CHECK(insecure->server == "https://other.example:6443");
  CHECK(insecure->insecure_skip_tls_verify);
  CHECK(insecure->token == "static-token-xyz");
  CHECK(insecure->ca_pem.empty());
}

TEST_CASE("kubeconfig: inline base64 data") {
  absl::StatusOr<ClientConfig> config = LoadKubeconfig(kTestdata + "/kubeconfig-inline.yaml");
  INFO(config.status().ToString());
  REQUIRE(config.ok());
  CHECK(config->server == "https://10.0.0.1:443");
  CHECK(config->ca_pem == "-----BEGIN CERTIFICATE-----\nINLINE CA\n-----END CERTIFICATE-----\n");
  CHECK(config->client_cert_pem == "INLINE CERT");
  CHECK(config->client_key_pem == "INLINE KEY");
  CHECK(config->tls_server_name == "kubernetes.default.svc");

  absl::StatusOr<ClientConfig> broken =
      LoadKubeconfig(kTestdata + "/kubeconfig-inline.yaml", "broken");
  CHECK(broken.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(broken.status().message().find("client-certificate-data") != std::string::npos);
}

TEST_CASE("kubeconfig: errors name what is wrong") {
  const std::string path = kTestdata + "/kubeconfig-files.yaml";
  CHECK(LoadKubeconfig(path, "no-such-context").status().code() == absl::StatusCode::kNotFound);
  CHECK(LoadKubeconfig(path, "nowhere").status().code() == absl::StatusCode::kNotFound);
  CHECK(LoadKubeconfig(path, "plugin").status().code() == absl::StatusCode::kUnimplemented);
  CHECK(LoadKubeconfig(path, "half").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(LoadKubeconfig(kTestdata + "/missing.yaml").status().code() == absl::StatusCode::kNotFound);
  CHECK(ParseKubeconfig("clusters: [unclosed", "/").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(ParseKubeconfig("- a\n- b\n", "/").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ParseKubeconfig("clusters: []\n", "/").status().code() ==
        absl::StatusCode::kFailedPrecondition);
  // A certificate file that does not exist.
  CHECK(ParseKubeconfig(R"(current-context: c
clusters: [{name: k, cluster: {server: "https://x", certificate-authority: nope.crt}}]
contexts: [{name: c, context: {cluster: k}}]
)",
                        "/nonexistent")
            .status()
            .code() == absl::StatusCode::kNotFound);
}

struct TempDir {
  std::string path;
  TempDir() {
    char pattern[] = "/tmp/tidepool-k8s-test-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void Write(const std::string& name, const std::string& content) const {
    std::ofstream(path + "/" + name) << content;
  }
};

TEST_CASE("in-cluster: service host and port, CA, token file and namespace") {
  TempDir dir;
  dir.Write("token", "sa-token-1\n");
  dir.Write("ca.crt", "SA CA");
  dir.Write("namespace", "slurm\n");
  std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"},
                                            {"KUBERNETES_SERVICE_PORT", "443"}};
  InClusterSource source{.service_account_dir = dir.path,
                         .getenv = [&env](const std::string& name) -> std::optional<std::string> {
                           auto it = env.find(name);
                           if (it == env.end()) return std::nullopt;
                           return it->second;
                         }};
  absl::StatusOr<ClientConfig> config = InClusterConfig(source);
  INFO(config.status().ToString());
  REQUIRE(config.ok());
  CHECK(config->server == "https://10.96.0.1:443");
  CHECK(config->ca_pem == "SA CA");
  CHECK(config->token_file == dir.path + "/token");
  CHECK(config->default_namespace == "slurm");

  env["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  absl::StatusOr<ClientConfig> v6 = InClusterConfig(source);
  REQUIRE(v6.ok());
  CHECK(v6->server == "https://[fd00::1]:443");

  env.erase("KUBERNETES_SERVICE_HOST");
  CHECK(InClusterConfig(source).status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("a token file is re-read when it changes") {
  TempDir dir;
  dir.Write("token", "first\n");
  TokenSource source("", dir.path + "/token");
  absl::StatusOr<std::string> token = source.Token();
  REQUIRE(token.ok());
  CHECK(*token == "first");
  CHECK(*source.Token() == "first");
  // Rotation writes a new file and renames it over the old one (new inode).
  dir.Write("token.new", "second-token\n");
  std::filesystem::rename(dir.path + "/token.new", dir.path + "/token");
  CHECK(*source.Token() == "second-token");
  // While the file is briefly gone, the last token is kept.
  std::filesystem::remove(dir.path + "/token");
  CHECK(*source.Token() == "second-token");

  TokenSource fixed("fixed", "");
  CHECK(*fixed.Token() == "fixed");
  TokenSource missing("", dir.path + "/never");
  CHECK(missing.Token().status().code() == absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace tidepool::k8s
