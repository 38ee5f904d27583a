#pragma once

// The test environment (tools/testenv/k8s and tools/testenv/slurm) as a test sees it:
// connection details read from the env files the `up` scripts write.
//
// Under ctest the integration fixtures (tests/integration/CMakeLists.txt) bring the
// environment up before the tests and down after them. A test binary run by hand finds
// no env file and starts the environment itself, once per process, with the same
// scripts; what it started it stops again at exit (TIDEPOOL_KEEP_TESTENV=1 keeps it).
// An environment that is already up is reused and left alone.

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "support/https_client.h"

namespace tidepool::testing {

using EnvVars = std::map<std::string, std::string>;

// Parses shell assignments as the testenv scripts write them: `KEY=VALUE` or
// `export KEY=VALUE`, blank lines and `#` comments, values unquoted (with backslash
// escapes, as bash's printf %q writes), in '…', "…" or $'…', or concatenations of
// these. Variable expansion and command substitution are refused, not guessed.
absl::StatusOr<EnvVars> ParseEnvFile(absl::string_view content);
absl::StatusOr<EnvVars> ReadEnvFile(const std::string& path);

// The newest of `versions` ("v0.0.40 v0.0.42 …") within [oldest, newest]; NotFound if none.
absl::StatusOr<std::string> NewestVersionInRange(const std::vector<std::string>& versions,
                                                 absl::string_view oldest,
                                                 absl::string_view newest);

// ${TIDEPOOL_RUN_DIR:-/run/tidepool}.
std::string TestenvRunDir();
// The source checkout: $TIDEPOOL_ROOT, else the directory CMake configured from.
std::string SourceRoot();

struct KubernetesEnv {
  std::string server;            // https://127.0.0.1:16443
  std::string ca_file;           // PEM of the CA that signed the serving certificate
  std::string client_cert_file;  // admin client certificate (system:masters)
  std::string client_key_file;
  std::string kubeconfig;  // admin kubeconfig with embedded credentials
  std::string kubectl;     // path of the kubectl binary
  std::string bin_dir;     // kube-apiserver, etcd, kubectl, helm, …
  EnvVars vars;            // everything in the env file
};

struct SlurmEnv {
  std::string suite;    // sid | trixie
  std::string version;  // 26.05.5
  std::string rest_url;
  std::string rest_socket;  // empty unless up ran with --rest-socket
  std::vector<std::string> rest_versions;
  std::string jwt_key_file;
  std::string token;  // JWT for token_user; header X-SLURM-USER-TOKEN
  std::string token_user;
  std::string nodes;                    // hostlist expression, n-[01-03]
  std::vector<std::string> node_names;  // expanded
  int node_count = 0;
  std::string conf_dir;
  std::string cluster;
  std::string exec;  // tools/testenv/slurm/exec: runs a command in the Slurm root
  EnvVars vars;

  // The newest REST data_parser version served within [oldest, newest].
  absl::StatusOr<std::string> RestVersion(absl::string_view oldest = "v0.0.42",
                                          absl::string_view newest = "v0.0.45") const;
};

// An HTTPS client for the API server as the admin (client certificate, CA file).
HttpsClient KubernetesClient(const KubernetesEnv& env);
// A client for slurmrestd over TCP, authenticated with the env's JWT.
HttpsClient SlurmRestClient(const SlurmEnv& env);

absl::StatusOr<KubernetesEnv> KubernetesEnvFromVars(EnvVars vars);
absl::StatusOr<SlurmEnv> SlurmEnvFromVars(EnvVars vars);

// The running environment; starts it (once per process) when its env file is missing.
// The Slurm suite comes from $TIDEPOOL_SLURM_SUITE (default sid); an environment of
// another suite that is already up is an error, not silently used.
absl::StatusOr<KubernetesEnv> Kubernetes();
absl::StatusOr<SlurmEnv> Slurm();

struct CommandResult {
  int exit_code = 0;   // -signal when killed by a signal
  std::string output;  // stdout and stderr, interleaved
};

// Runs argv[0] (a path) with a bound; DeadlineExceeded (with the output so far) if it
// did not finish.
absl::StatusOr<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                         absl::Duration timeout);

// The path of a Go-built tool of the test environment (helm, promtool, prometheus, ...),
// built first by tools/testenv/k8s/build when the cache lacks it; the error carries the
// build's output.
absl::StatusOr<std::string> TestenvTool(const std::string& binary);

// kubectl with the admin kubeconfig.
absl::StatusOr<CommandResult> Kubectl(const KubernetesEnv& env,
                                      const std::vector<std::string>& args,
                                      absl::Duration timeout = absl::Seconds(90));

// The Slurm exec helper: a command inside the Slurm root (e.g. {"sinfo", "-N"}).
absl::StatusOr<CommandResult> SlurmExec(const SlurmEnv& env, const std::vector<std::string>& args,
                                        absl::Duration timeout = absl::Seconds(30));

}  // namespace tidepool::testing
