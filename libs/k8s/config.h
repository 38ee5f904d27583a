#pragma once

// Where the API server is and how to authenticate: from a kubeconfig file or from the
// service account a pod runs as.

#include <functional>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace tidepool::k8s {

struct ClientConfig {
  std::string server;  // https://127.0.0.1:16443 (no trailing slash)
  // TLS, as PEM text held in memory (kubeconfig files are read at load time).
  std::string ca_pem;  // empty: the system's CA store
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string tls_server_name;  // verify the server as this name instead of the URL's host
  bool insecure_skip_tls_verify = false;  // only when the kubeconfig says so
  // Bearer token: fixed, or read from a file and re-read whenever the file changes
  // (projected service-account tokens rotate).
  std::string token;
  std::string token_file;
  std::string default_namespace = "default";  // the context's, or the service account's

  // Client behaviour (not from the kubeconfig).
  double qps = 20;                             // client-side rate limit; <= 0 for none
  int burst = 40;                              // bucket size
  absl::Duration timeout = absl::Seconds(30);  // per request (watches use their own)
  absl::Duration connect_timeout = absl::Seconds(10);
  std::string user_agent = "tidepool";
};

// Parses kubeconfig YAML. Relative file paths are relative to `base_dir`. `context` picks
// a context by name; empty means current-context. Inline *-data fields are base64.
// Supports clusters with server, certificate-authority(-data), insecure-skip-tls-verify,
// tls-server-name; users with client-certificate(-data) + client-key(-data), token,
// tokenFile. exec / auth-provider users are Unimplemented.
absl::StatusOr<ClientConfig> ParseKubeconfig(absl::string_view yaml, absl::string_view base_dir,
                                             absl::string_view context = "");
// Reads and parses a kubeconfig file.
absl::StatusOr<ClientConfig> LoadKubeconfig(const std::string& path,
                                            absl::string_view context = "");

// Where in-cluster configuration comes from; the defaults are a pod's.
struct InClusterSource {
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
  // Environment lookup (KUBERNETES_SERVICE_HOST/PORT); default getenv.
  std::function<std::optional<std::string>(const std::string&)> getenv;
};
// https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT with the service account's
// CA, token file (re-read when it changes) and namespace. NotFound outside a pod.
absl::StatusOr<ClientConfig> InClusterConfig(const InClusterSource& source = {});

// $KUBECONFIG (its first path), else in-cluster, else ~/.kube/config.
absl::StatusOr<ClientConfig> DefaultConfig();

}  // namespace tidepool::k8s
