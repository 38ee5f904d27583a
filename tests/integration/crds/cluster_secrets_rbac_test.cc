// cluster-controller's auth step acting as its own service account under manifests/rbac
// (the charts grant the same: helm_charts_test): a SlurmCluster in a namespace its Secrets
// Role does not cover is refused by the API server, and the step says so with the fix
// and creates nothing; in the granted namespace (hpc) it creates the cluster's keys.
#include <catch2/catch_test_macros.hpp>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "auth_sync.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/errors.h"
#include "k8s/event_recorder.h"
#include "k8s/informer.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"
#include "manifests_env.h"
#include "support/testenv.h"
#include "tidepool/resource_types.h"
#include "tidepool/resources.h"

namespace tidepool::testing {
namespace {

constexpr char kCluster[] = "secrets-rbac";

void RequireOk(const absl::Status& status) {
  INFO(status.ToString());
  REQUIRE(status.ok());
}

// The admin's server and CA with the service account's token instead of the admin's
// certificate.
k8s::ClientConfig AsServiceAccount(const KubernetesEnv& env, const k8s::ClientConfig& admin,
                                   const std::string& ns, const std::string& account) {
  const CommandResult token =
      MustKubectl(env, {"-n", ns, "create", "token", account, "--duration=10m"});
  k8s::ClientConfig config = admin;
  config.client_cert_pem.clear();
  config.client_key_pem.clear();
  config.token = std::string(absl::StripAsciiWhitespace(token.output));
  return config;
}

// Creates (or finds) the SlurmCluster in `ns` and returns it as the reconciler sees it.
cluster::ClusterContext ClusterIn(k8s::Client& admin, const std::string& ns) {
  const std::string json =
      absl::StrCat(R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"SlurmCluster",
        "metadata":{"name":")",
                   kCluster, R"("},"spec":{"clusterName":")", kCluster, R"(",
        "partitions":[{"name":"cpu","nodeSets":["cpu"],"default":true}]}})");
  absl::StatusOr<std::string> created = admin.Create(api::SlurmClusters(), ns, json);
  if (!created.ok()) {
    REQUIRE(absl::IsAlreadyExists(created.status()));
    created = admin.Get(api::SlurmClusters(), ns, kCluster);
    RequireOk(created.status());
  }
  absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(*created);
  RequireOk(meta.status());
  auto cached = std::make_shared<k8s::CachedObject>();
  cached->meta = *meta;
  cached->json = *created;
  return {.key = absl::StrCat(ns, "/", kCluster),
          .cluster = cached,
          .spec = api::ParseSlurmCluster(*created)};
}

bool SecretExists(k8s::Client& admin, const std::string& ns, const std::string& name) {
  absl::StatusOr<std::string> secret = admin.Get(k8s::Secrets(), ns, name);
  if (!secret.ok()) REQUIRE(absl::IsNotFound(secret.status()));
  return secret.ok();
}

TEST_CASE("cluster-controller's Secrets: refused outside its clusterNamespaces with the fix") {
  auto env = Kubernetes();
  REQUIRE(env.ok());
  PrepareManifests(*env);
  absl::StatusOr<k8s::ClientConfig> admin_config = k8s::LoadKubeconfig(env->kubeconfig);
  REQUIRE(admin_config.ok());
  k8s::Client admin(*admin_config);
  k8s::Client as_controller(
      AsServiceAccount(*env, *admin_config, "tidepool-system", "tidepool-cluster-controller"));
  k8s::EventRecorder events(as_controller, {.reporting_controller = "tidepool.dev/test"});
  cluster::AuthStep step(as_controller, events, "tidepool-cluster-controller");

  const cluster::ClusterContext elsewhere = ClusterIn(admin, "elsewhere");
  cluster::ClusterOutcome refused;
  const absl::StatusOr<k8s::ReconcileResult> denied = step.Sync(elsewhere, refused);
  INFO(denied.status().ToString());
  CHECK(absl::IsPermissionDenied(denied.status()));
  CHECK(refused.report_error);
  CHECK_FALSE(refused.auth.ready);
  CHECK(absl::StrContains(refused.auth.error, "may not read or create the Secrets of elsewhere"));
  CHECK(absl::StrContains(refused.auth.error, "clusterNamespaces"));
  CHECK_FALSE(SecretExists(admin, "elsewhere", refused.auth.munge_key_secret));

  const cluster::ClusterContext hpc = ClusterIn(admin, "hpc");
  cluster::ClusterOutcome granted;
  const absl::StatusOr<k8s::ReconcileResult> synced = step.Sync(hpc, granted);
  RequireOk(synced.status());
  INFO(granted.auth.error);
  CHECK(granted.auth.ready);
  CHECK(SecretExists(admin, "hpc", granted.auth.munge_key_secret));
  CHECK(SecretExists(admin, "hpc", granted.auth.jwt_key_secret));
}

}  // namespace
}  // namespace tidepool::testing
