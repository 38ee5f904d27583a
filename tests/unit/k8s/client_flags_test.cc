#include "k8s/client_flags.h"

#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "absl/strings/match.h"

namespace tidepool::k8s {
namespace {

// A kubeconfig file in a directory of its own, removed with it.
class KubeconfigFile {
 public:
  KubeconfigFile() {
    char pattern[] = "/tmp/tidepool-client-flags-test-XXXXXX";
    dir_ = mkdtemp(pattern);
    std::ofstream(path()) << R"(apiVersion: v1
kind: Config
current-context: flags
clusters: [{name: flags, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: flags, user: {token: flags-token}}]
contexts: [{name: flags, context: {cluster: flags, user: flags, namespace: hpc}}]
)";
  }
  ~KubeconfigFile() { std::filesystem::remove_all(dir_); }
  std::string path() const { return dir_ + "/kubeconfig"; }
  std::string dir() const { return dir_; }

 private:
  std::string dir_;
};

// Sets $KUBECONFIG for one scope and restores what was there.
class ScopedKubeconfigEnv {
 public:
  explicit ScopedKubeconfigEnv(const std::string& value) {
    if (const char* old = getenv("KUBECONFIG"); old != nullptr) old_ = old;
    setenv("KUBECONFIG", value.c_str(), 1);
  }
  ~ScopedKubeconfigEnv() {
    if (old_.has_value()) {
      setenv("KUBECONFIG", old_->c_str(), 1);
    } else {
      unsetenv("KUBECONFIG");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST_CASE("client flags: the defaults are valid; qps and burst errors name the flag") {
  CHECK(ValidateClientFlags({}).ok());
  CHECK(ValidateClientFlags({.qps = 0.5, .burst = 1}).ok());

  absl::Status qps = ValidateClientFlags({.qps = 0});
  CHECK(absl::IsInvalidArgument(qps));
  CHECK(qps.message() == "--kube_api_qps=0 must be greater than 0");
  CHECK(absl::IsInvalidArgument(ValidateClientFlags({.qps = -1})));
  CHECK(absl::IsInvalidArgument(ValidateClientFlags({.qps = std::nan("")})));

  absl::Status burst = ValidateClientFlags({.burst = 0});
  CHECK(absl::IsInvalidArgument(burst));
  CHECK(burst.message() == "--kube_api_burst=0 must be at least 1");
}

TEST_CASE("leader-election flags: a namespace is needed only when enabled") {
  CHECK(ValidateLeaderElectionFlags({}).ok());
  absl::Status empty = ValidateLeaderElectionFlags({.lease_namespace = ""});
  CHECK(absl::IsInvalidArgument(empty));
  CHECK(empty.message() == "--leader_election_namespace is empty");
  CHECK(ValidateLeaderElectionFlags({.enabled = false, .lease_namespace = ""}).ok());
}

TEST_CASE("client config from flags: --kubeconfig is loaded with qps, burst and user agent") {
  KubeconfigFile file;
  absl::StatusOr<ClientConfig> config =
      ClientConfigFromFlags({.kubeconfig = file.path(), .qps = 7.5, .burst = 15}, "tidepool-test");
  INFO(config.status().ToString());
  REQUIRE(config.ok());
  CHECK(config->server == "https://127.0.0.1:6443");
  CHECK(config->token == "flags-token");
  CHECK(config->default_namespace == "hpc");
  CHECK(config->qps == 7.5);
  CHECK(config->burst == 15);
  CHECK(config->user_agent == "tidepool-test");
}

TEST_CASE("client config from flags: a missing --kubeconfig names the flag and the path") {
  KubeconfigFile file;
  const std::string missing = file.dir() + "/missing";
  absl::Status status = ClientConfigFromFlags({.kubeconfig = missing}, "tidepool-test").status();
  CHECK(absl::IsNotFound(status));  // LoadKubeconfig's code is kept
  CHECK(absl::StartsWith(status.message(), "--kubeconfig " + missing + ": "));
}

TEST_CASE("client config from flags: empty --kubeconfig follows $KUBECONFIG") {
  KubeconfigFile file;
  {
    ScopedKubeconfigEnv env(file.path());
    absl::StatusOr<ClientConfig> config = ClientConfigFromFlags({}, "tidepool-test");
    INFO(config.status().ToString());
    REQUIRE(config.ok());
    CHECK(config->server == "https://127.0.0.1:6443");
    CHECK(config->qps == 20);
    CHECK(config->burst == 40);
    CHECK(config->user_agent == "tidepool-test");
  }
  ScopedKubeconfigEnv env(file.dir() + "/missing");
  absl::Status status = ClientConfigFromFlags({}, "tidepool-test").status();
  CHECK(absl::IsNotFound(status));
  CHECK(absl::StartsWith(status.message(),
                         "Kubernetes client configuration ($KUBECONFIG, in-cluster, "
                         "~/.kube/config): "));
}

TEST_CASE("client config from flags: bad qps or burst is refused before any file is read") {
  absl::Status qps =
      ClientConfigFromFlags({.kubeconfig = "/nonexistent", .qps = 0}, "tidepool-test").status();
  CHECK(absl::IsInvalidArgument(qps));
  CHECK(absl::StrContains(qps.message(), "--kube_api_qps"));
  absl::Status burst =
      ClientConfigFromFlags({.kubeconfig = "/nonexistent", .burst = -3}, "tidepool-test").status();
  CHECK(absl::IsInvalidArgument(burst));
  CHECK(absl::StrContains(burst.message(), "--kube_api_burst=-3"));
}

}  // namespace
}  // namespace tidepool::k8s
