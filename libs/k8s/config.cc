#include "k8s/config.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "yaml-cpp/yaml.h"

namespace tidepool::k8s {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path, absl::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read ", what, " ", path));
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string Resolve(absl::string_view base_dir, const std::string& path) {
  if (path.empty() || path[0] == '/' || base_dir.empty()) return path;
  return absl::StrCat(base_dir, "/", path);
}

std::string Scalar(const YAML::Node& map, const char* key) {
  const YAML::Node node = map[key];
  if (!node || !node.IsScalar()) return "";
  return node.Scalar();
}

// The `field` mapping of the list entry named `name` in `kind` (clusters, users, contexts).
absl::StatusOr<YAML::Node> Named(const YAML::Node& root, const char* kind, const char* field,
                                 const std::string& name) {
  const YAML::Node list = root[kind];
  if (list && list.IsSequence()) {
    for (const YAML::Node& entry : list) {
      if (entry.IsMap() && Scalar(entry, "name") == name) {
        const YAML::Node value = entry[field];
        if (!value) return YAML::Node(YAML::NodeType::Map);
        if (!value.IsMap()) {
          return absl::InvalidArgumentError(
              absl::StrCat("kubeconfig: ", kind, " entry \"", name, "\" has no ", field, " map"));
        }
        return value;
      }
    }
  }
  return absl::NotFoundError(absl::StrCat("kubeconfig: no ", field, " named \"", name, "\""));
}

// PEM from `key`-data (base64) or `key` (a file).
absl::StatusOr<std::string> Pem(const YAML::Node& map, const std::string& key,
                                absl::string_view base_dir) {
  const std::string data = Scalar(map, (key + "-data").c_str());
  if (!data.empty()) {
    std::string decoded;
    if (!absl::Base64Unescape(data, &decoded)) {
      return absl::InvalidArgumentError(absl::StrCat("kubeconfig: ", key, "-data is not base64"));
    }
    return decoded;
  }
  const std::string file = Scalar(map, key.c_str());
  if (file.empty()) return std::string();
  return ReadFile(Resolve(base_dir, file), key);
}

absl::StatusOr<ClientConfig> ParseKubeconfigOrThrow(absl::string_view yaml,
                                                    absl::string_view base_dir,
                                                    absl::string_view context_name) {
  const YAML::Node root = YAML::Load(std::string(yaml));
  if (!root.IsMap()) return absl::InvalidArgumentError("kubeconfig: not a YAML mapping");
  std::string name(context_name);
  if (name.empty()) name = Scalar(root, "current-context");
  if (name.empty()) {
    return absl::FailedPreconditionError("kubeconfig: no context given and no current-context");
  }
  absl::StatusOr<YAML::Node> context = Named(root, "contexts", "context", name);
  if (!context.ok()) return context.status();
  const std::string cluster_name = Scalar(*context, "cluster");
  const std::string user_name = Scalar(*context, "user");
  absl::StatusOr<YAML::Node> cluster = Named(root, "clusters", "cluster", cluster_name);
  if (!cluster.ok()) return cluster.status();

  ClientConfig config;
  config.server = std::string(absl::StripSuffix(Scalar(*cluster, "server"), "/"));
  if (config.server.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig: cluster \"", cluster_name, "\" has no server"));
  }
  absl::StatusOr<std::string> ca = Pem(*cluster, "certificate-authority", base_dir);
  if (!ca.ok()) return ca.status();
  config.ca_pem = *std::move(ca);
  config.insecure_skip_tls_verify = Scalar(*cluster, "insecure-skip-tls-verify") == "true";
  config.tls_server_name = Scalar(*cluster, "tls-server-name");
  const std::string ns = Scalar(*context, "namespace");
  if (!ns.empty()) config.default_namespace = ns;

  if (!user_name.empty()) {
    absl::StatusOr<YAML::Node> user = Named(root, "users", "user", user_name);
    if (!user.ok()) return user.status();
    if ((*user)["exec"] || (*user)["auth-provider"]) {
      if (Scalar(*user, "token").empty() && Scalar(*user, "client-certificate-data").empty() &&
          Scalar(*user, "client-certificate").empty()) {
        return absl::UnimplementedError(absl::StrCat("kubeconfig: user \"", user_name,
                                                     "\" uses exec/auth-provider credentials"));
      }
    }
    absl::StatusOr<std::string> cert = Pem(*user, "client-certificate", base_dir);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = Pem(*user, "client-key", base_dir);
    if (!key.ok()) return key.status();
    if (cert->empty() != key->empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "kubeconfig: user \"", user_name, "\" needs both a client certificate and a key"));
    }
    config.client_cert_pem = *std::move(cert);
    config.client_key_pem = *std::move(key);
    config.token = Scalar(*user, "token");
    const std::string token_file = Scalar(*user, "tokenFile");
    if (!token_file.empty()) config.token_file = Resolve(base_dir, token_file);
  }
  return config;
}

}  // namespace

absl::StatusOr<ClientConfig> ParseKubeconfig(absl::string_view yaml, absl::string_view base_dir,
                                             absl::string_view context) {
  try {
    return ParseKubeconfigOrThrow(yaml, base_dir, context);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("kubeconfig: ", e.what()));
  }
}

absl::StatusOr<ClientConfig> LoadKubeconfig(const std::string& path, absl::string_view context) {
  absl::StatusOr<std::string> text = ReadFile(path, "kubeconfig");
  if (!text.ok()) return text.status();
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  absl::StatusOr<ClientConfig> config = ParseKubeconfig(*text, dir.empty() ? "/" : dir, context);
  if (!config.ok()) {
    return absl::Status(config.status().code(),
                        absl::StrCat(path, ": ", config.status().message()));
  }
  return config;
}

absl::StatusOr<ClientConfig> InClusterConfig(const InClusterSource& source) {
  auto getenv = source.getenv;
  if (!getenv) {
    getenv = [](const std::string& name) -> std::optional<std::string> {
      const char* value = std::getenv(name.c_str());
      if (value == nullptr) return std::nullopt;
      return std::string(value);
    };
  }
  const std::optional<std::string> host = getenv("KUBERNETES_SERVICE_HOST");
  const std::optional<std::string> port = getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !port || host->empty() || port->empty()) {
    return absl::NotFoundError(
        "not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
  }
  ClientConfig config;
  const bool ipv6 = absl::StrContains(*host, ':');
  config.server = absl::StrCat("https://", ipv6 ? "[" : "", *host, ipv6 ? "]" : "", ":", *port);
  const std::string dir = source.service_account_dir;
  config.token_file = absl::StrCat(dir, "/token");
  absl::StatusOr<std::string> token = ReadFile(config.token_file, "service account token");
  if (!token.ok()) return token.status();
  absl::StatusOr<std::string> ca = ReadFile(absl::StrCat(dir, "/ca.crt"), "service account CA");
  if (!ca.ok()) return ca.status();
  config.ca_pem = *std::move(ca);
  absl::StatusOr<std::string> ns = ReadFile(absl::StrCat(dir, "/namespace"), "namespace");
  if (ns.ok()) {
    const std::string trimmed(absl::StripAsciiWhitespace(*ns));
    if (!trimmed.empty()) config.default_namespace = trimmed;
  }
  return config;
}

absl::StatusOr<ClientConfig> DefaultConfig() {
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    const std::string first(*absl::StrSplit(env, ':').begin());
    return LoadKubeconfig(first);
  }
  absl::StatusOr<ClientConfig> in_cluster = InClusterConfig();
  if (in_cluster.ok() || !absl::IsNotFound(in_cluster.status())) return in_cluster;
  const char* home = std::getenv("HOME");
  return LoadKubeconfig(absl::StrCat(home == nullptr ? "" : home, "/.kube/config"));
}

}  // namespace tidepool::k8s
