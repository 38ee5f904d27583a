// slurm-syncer with --slurm_cluster against a real API server and a real Slurm: the JWT
// key comes from the SlurmCluster's Secret (here holding the test environment's key),
// slurmrestd is the test environment's (--slurm_rest_address_from=url, as no pod network
// runs here). A wrong or missing key keeps it unready with the Secret named, and fixing
// the Secret makes it ready again without a restart.
#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/resource.h"
#include "support/eventually.h"
#include "support/kube_namespace.h"
#include "support/testenv.h"
#include "syncer_process.h"
#include "tidepool/resource_types.h"

namespace tidepool::testing {
namespace {

constexpr char kNamespace[] = "tidepool-syncer-cluster";
constexpr char kCluster[] = "keyed";
constexpr char kSecret[] = "keyed-jwt-key";  // the generated Secret's name

void RequireOk(const absl::Status& status) {
  INFO(status.ToString());
  REQUIRE(status.ok());
}

std::string ReadKeyFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

std::string SecretJson(const std::string& key) {
  return absl::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")", kSecret,
                      R"("},"data":{"jwt_hs256.key":")", absl::Base64Escape(key), R"("}})");
}

struct ClusterFixture {
  ClusterFixture() : slurm(RequireSlurm()), kube(Kubernetes().value()) {
    absl::StatusOr<CommandResult> crds =
        Kubectl(kube, {"apply", "-f", SourceRoot() + "/manifests/crds"});
    REQUIRE(crds.ok());
    REQUIRE(crds->exit_code == 0);
    RequireOk(Kubectl(kube, {"wait", "--for=condition=Established", "--timeout=60s", "crd",
                             "slurmclusters.tidepool.dev"})
                  .status());
    client = std::make_unique<k8s::Client>(k8s::LoadKubeconfig(kube.kubeconfig).value());
    RequireOk(EnsurePodNamespace(*client, kNamespace));
    Cleanup();
    RequireOk(client
                  ->Create(api::SlurmClusters(), kNamespace,
                           absl::StrCat(R"({"apiVersion":"tidepool.dev/v1alpha1",
              "kind":"SlurmCluster","metadata":{"name":")",
                                        kCluster, R"("},"spec":{"clusterName":")", kCluster,
                                        R"(","partitions":[{"name":"cpu","nodeSets":["cpu"]}]}})"))
                  .status());
    key = ReadKeyFile(slurm.jwt_key_file);
  }
  ~ClusterFixture() {
    syncer.reset();
    Cleanup();
  }

  void Cleanup() {
    (void)client->Delete(k8s::Secrets(), kNamespace, kSecret);
    (void)client->Delete(k8s::Secrets(), kNamespace, absl::StrCat(kCluster, "-restapi-tls"));
    (void)client->Delete(k8s::Services(), kNamespace, absl::StrCat(kCluster, "-restapi"));
    (void)client->Delete(api::SlurmClusters(), kNamespace, kCluster);
  }

  void PutSecret(const std::string& secret_key) {
    absl::Status created =
        client->Create(k8s::Secrets(), kNamespace, SecretJson(secret_key)).status();
    if (absl::IsAlreadyExists(created)) {
      created =
          client->Update(k8s::Secrets(), kNamespace, kSecret, SecretJson(secret_key)).status();
    }
    RequireOk(created);
  }

  void StartSyncer(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {absl::StrCat("--slurm_cluster=", kNamespace, "/", kCluster),
                                     "--slurm_rest_address_from=url",
                                     "--slurm_rest_url=" + slurm.rest_url,
                                     "--slurm_jwt_user=" + slurm.token_user,
                                     "--slurm_jwt_key_refresh_interval=2s",
                                     "--kubeconfig=" + kube.kubeconfig};
    args.insert(args.end(), extra.begin(), extra.end());
    syncer = std::make_unique<Syncer>(args);
  }

  // /readyz's answer: 200, or 503 with the failing check's message.
  std::pair<int, std::string> Readiness() {
    absl::StatusOr<HttpResponse> ready = syncer->Get("/readyz");
    if (!ready.ok()) return {0, ready.status().ToString()};
    return {ready->status, ready->body};
  }

  // Never ready for `period`.
  void RequireUnreadyFor(absl::Duration period) {
    const absl::Time end = absl::Now() + period;
    while (absl::Now() < end) {
      const auto [status, body] = Readiness();
      INFO(body << "\n" << OutputTail(syncer->Output()));
      REQUIRE(status != 200);
      absl::SleepFor(absl::Milliseconds(200));
    }
  }

  // Not ready until /readyz says why with `expected`, within `timeout`.
  void AwaitUnreadyBecause(const std::string& expected,
                           absl::Duration timeout = absl::Seconds(15)) {
    const absl::Time end = absl::Now() + timeout;
    std::string last;
    while (absl::Now() < end) {
      const auto [status, body] = Readiness();
      INFO(body << "\n" << OutputTail(syncer->Output()));
      REQUIRE(status != 200);
      if (absl::StrContains(body, expected)) return;
      last = body;
      absl::SleepFor(absl::Milliseconds(200));
    }
    INFO(OutputTail(syncer->Output()));
    FAIL("/readyz never said \"" << expected << "\"; last: " << last);
  }

  // The node names Slurm has now (other tests may have reconfigured it).
  std::vector<std::string> SlurmNodeNames() {
    absl::StatusOr<CommandResult> r = SlurmExec(slurm, {"sinfo", "-h", "-N", "-o", "%N"});
    REQUIRE(r.ok());
    REQUIRE(r->exit_code == 0);
    std::vector<std::string> names = absl::StrSplit(r->output, '\n', absl::SkipWhitespace());
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  }

  SlurmEnv slurm;
  KubernetesEnv kube;
  std::unique_ptr<k8s::Client> client;
  std::string key;  // the test environment's slurmrestd JWT key
  std::unique_ptr<Syncer> syncer;
};

TEST_CASE("--slurm_cluster mints tokens from the key in the cluster's Secret") {
  ClusterFixture f;
  f.PutSecret(f.key);
  f.StartSyncer();
  f.syncer->AwaitReady(absl::Seconds(30));

  v1::GetNodesRequest request;
  request.set_fresh(true);
  v1::GetNodesResponse response;
  grpc::Status status = f.syncer->stub().GetNodes(Deadline().get(), request, &response);
  INFO(status.error_message());
  REQUIRE(status.ok());
  std::vector<std::string> names;
  for (const v1::SlurmNode& node : response.nodes()) names.push_back(node.name());
  std::sort(names.begin(), names.end());
  CHECK(names == f.SlurmNodeNames());
  const std::string output = f.syncer->Output();
  CHECK(absl::StrContains(output, "slurm_jwt_key_loaded"));
  CHECK(absl::StrContains(output, absl::StrCat(kNamespace, "/", kSecret)));
  CHECK_FALSE(absl::StrContains(output, absl::Base64Escape(f.key)));
}

TEST_CASE("a request for another SlurmCluster is refused and changes nothing in Slurm") {
  ClusterFixture f;
  f.PutSecret(f.key);
  f.StartSyncer();
  f.syncer->AwaitReady(absl::Seconds(30));
  const std::vector<std::string> names = f.SlurmNodeNames();
  REQUIRE_FALSE(names.empty());
  const std::string node = names.front();
  const auto state = [&] {
    absl::StatusOr<CommandResult> r = SlurmExec(f.slurm, {"sinfo", "-h", "-n", node, "-o", "%t"});
    REQUIRE(r.ok());
    return std::string(absl::StripAsciiWhitespace(r->output));
  };
  const std::string before = state();
  const std::string refused = absl::StrCat("slurm-syncer serves SlurmCluster ", kNamespace, "/",
                                           kCluster, ", not other/research");

  // Another cluster's NodeSet may well have a node of this name: draining it here, or
  // reading it as idle, would act on the wrong cluster's node.
  v1::UpdateNodeRequest drain;
  drain.set_cluster("other/research");
  drain.set_name(node);
  drain.set_action(v1::UpdateNodeRequest::DRAIN);
  drain.set_reason("k8s: scale-in");
  v1::UpdateNodeResponse drained;
  grpc::Status status = f.syncer->stub().UpdateNode(Deadline().get(), drain, &drained);
  CHECK(status.error_code() == grpc::StatusCode::FAILED_PRECONDITION);
  CHECK(absl::StrContains(status.error_message(), refused));
  v1::GetNodesRequest list;
  list.set_fresh(true);
  list.set_cluster("other/research");
  v1::GetNodesResponse listed;
  status = f.syncer->stub().GetNodes(Deadline().get(), list, &listed);
  CHECK(status.error_code() == grpc::StatusCode::FAILED_PRECONDITION);
  CHECK(listed.nodes().empty());
  v1::ReconfigureRequest reconfigure;
  reconfigure.set_cluster("other/research");
  v1::ReconfigureResponse reconfigured;
  status = f.syncer->stub().Reconfigure(Deadline().get(), reconfigure, &reconfigured);
  CHECK(status.error_code() == grpc::StatusCode::FAILED_PRECONDITION);
  CHECK(state() == before);
  CHECK(absl::StrContains(f.syncer->Output(), "other_cluster_refused"));

  // Its own cluster, named, is served.
  list.set_cluster(absl::StrCat(kNamespace, "/", kCluster));
  status = f.syncer->stub().GetNodes(Deadline().get(), list, &listed);
  INFO(status.error_message());
  CHECK(status.ok());
  CHECK(listed.nodes_size() == static_cast<int>(names.size()));
}

TEST_CASE("a wrong key keeps the syncer unready, naming the Secret, until it is fixed") {
  ClusterFixture f;
  f.PutSecret(std::string(64, 'w'));
  f.StartSyncer();
  f.RequireUnreadyFor(absl::Seconds(4));
  const std::string output = f.syncer->Output();
  CHECK(absl::StrContains(output, "slurm_jwt_key_rejected"));
  CHECK(absl::StrContains(output, absl::StrCat(kNamespace, "/", kSecret)));

  f.PutSecret(f.key);
  // Re-read soon after the next refusal, at the latest after the 2 s refresh interval,
  // plus a node poll (1 s).
  f.syncer->AwaitReady(absl::Seconds(6));
}

TEST_CASE("a missing or short key keeps the syncer unready, and it keeps retrying") {
  ClusterFixture f;
  f.StartSyncer();
  f.AwaitUnreadyBecause(absl::StrCat("Secret ", kNamespace, "/", kSecret, " not found"));
  f.PutSecret("too-short");
  f.AwaitUnreadyBecause("holds a JWT key of 9 bytes");
  CHECK(f.syncer->process().Running());
  f.PutSecret(f.key);
  f.syncer->AwaitReady(absl::Seconds(6));
}

TEST_CASE("--slurm_rest_address_from=service reads the restapi Service and TLS Secret") {
  ClusterFixture f;
  f.PutSecret(f.key);
  f.StartSyncer({"--slurm_rest_address_from=service"});
  f.AwaitUnreadyBecause(absl::StrCat("Service ", kNamespace, "/", kCluster, "-restapi not found"));
  CHECK(absl::StrContains(f.syncer->Output(), "slurm_unreachable"));
  RequireOk(f.client
                ->Create(k8s::Services(), kNamespace,
                         absl::StrCat(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":")",
                                      kCluster, R"(-restapi"},"spec":{"ports":[{"port":6820}]}})"))
                .status());
  // The certificate is checked against the CA of the cluster's TLS Secret, never the system's.
  const std::string tls = absl::StrCat(kCluster, "-restapi-tls");
  f.AwaitUnreadyBecause(absl::StrCat("Secret ", kNamespace, "/", tls, " not found"));
  // One the SlurmCluster does not control is not trusted, whatever its name.
  const auto put_tls = [&](const std::string& owner) {
    (void)f.client->Delete(k8s::Secrets(), kNamespace, tls);
    RequireOk(
        f.client
            ->Create(k8s::Secrets(), kNamespace,
                     absl::StrCat(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":")", tls,
                                  R"(")", owner, R"(},"data":{"ca.crt":")",
                                  absl::Base64Escape("not a certificate"), R"("}})"))
            .status());
  };
  put_tls("");
  f.AwaitUnreadyBecause(
      absl::StrCat("Secret ", kNamespace, "/", tls, " is not controlled by the SlurmCluster"));
  absl::StatusOr<std::string> cluster = f.client->Get(api::SlurmClusters(), kNamespace, kCluster);
  REQUIRE(cluster.ok());
  put_tls(absl::StrCat(R"(,"ownerReferences":[{"apiVersion":"tidepool.dev/v1alpha1",)",
                       R"("kind":"SlurmCluster","name":")", kCluster, R"(","uid":")",
                       k8s::ParseObjectMeta(*cluster)->uid, R"(","controller":true}])"));
  f.AwaitUnreadyBecause(
      absl::StrCat("Secret ", kNamespace, "/", tls, " holds no PEM certificate under \"ca.crt\""));
}

}  // namespace
}  // namespace tidepool::testing
