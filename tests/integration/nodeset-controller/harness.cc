#include "harness.h"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "k8s/conditions.h"
#include "k8s/config.h"
#include "k8s/errors.h"
#include "k8s/object_json.h"
#include "support/eventually.h"
#include "support/http_get.h"
#include "support/kube_events.h"
#include "support/kube_namespace.h"
#include "support/ports.h"

namespace tidepool::nodeset::testing {
namespace {

const char* Binary() {
  const char* path = std::getenv("TIDEPOOL_NODESET_CONTROLLER");
  REQUIRE(path != nullptr);
  return path;
}

void RequireOk(const absl::Status& status) {
  INFO(status.ToString());
  REQUIRE(status.ok());
}

void MustKubectl(const KubernetesEnv& env, const std::vector<std::string>& args) {
  auto result = tidepool::testing::Kubectl(env, args);
  REQUIRE(result.ok());
  INFO(result->output);
  REQUIRE(result->exit_code == 0);
}

rapidjson::Document Parse(const std::string& json) {
  return k8s::ParseJsonObject(json, "object").value();
}

}  // namespace

bool WaitUntil(const std::function<bool()>& done, absl::Duration timeout) {
  return tidepool::testing::PollUntil(done, timeout, absl::Milliseconds(200)).has_value();
}

TestNamespace::TestNamespace() {
  absl::StatusOr<KubernetesEnv> env = tidepool::testing::Kubernetes();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  env_ = *env;
  absl::StatusOr<k8s::ClientConfig> config = k8s::LoadKubeconfig(env_.kubeconfig);
  REQUIRE(config.ok());
  client_ = std::make_unique<k8s::Client>(*config);
  MustKubectl(env_, {"apply", "-f", std::string(TIDEPOOL_MANIFESTS_DIR) + "/crds"});
  MustKubectl(env_, {"wait", "--for", "condition=established", "--timeout=60s",
                     "crd/slurmclusters.tidepool.dev", "crd/nodesets.tidepool.dev"});
  name_ = absl::StrCat("nsc-", getpid(), "-", absl::ToUnixMillis(absl::Now()) % 100000);
  RequireOk(tidepool::testing::EnsurePodNamespace(*client_, name_));
  CreateCluster("research");
  kubelet_ = std::jthread([this](std::stop_token stop) { FinishDeletions(stop); });
}

TestNamespace::~TestNamespace() {
  kubelet_.request_stop();
  if (kubelet_.joinable()) kubelet_.join();
  if (auto list = client_->ListAll(NodeSets(), name_); list.ok()) {
    for (const std::string& item : list->items) {
      (void)client_->Delete(NodeSets(), name_, k8s::ParseObjectMeta(item)->name);
    }
  }
  if (auto list = client_->ListAll(k8s::Pods(), name_); list.ok()) {
    for (const std::string& item : list->items) {
      (void)client_->Delete(k8s::Pods(), name_, k8s::ParseObjectMeta(item)->name,
                            {.grace_period_seconds = 0});
    }
  }
  for (const std::string& node : nodes_) (void)client_->Delete(k8s::Nodes(), "", node);
  // Without a namespace controller the namespace stays Terminating; nothing is left in it.
  (void)client_->Delete(k8s::Namespaces(), "", name_);
}

std::string TestNamespace::RunSelector() const { return "tidepool.test/run=" + name_; }

std::string TestNamespace::CreateNode(const std::string& suffix, const std::string& extra_labels) {
  const std::string node = absl::StrCat(name_, "-", suffix);
  const std::string json = absl::StrCat(
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")", node,
      R"(","labels":{"tidepool.test/run":")", name_, "\"", extra_labels.empty() ? "" : ",",
      extra_labels, R"(}},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}})");
  RequireOk(client_->Create(k8s::Nodes(), "", json).status());
  nodes_.push_back(node);
  // The API server taints a new Node not-ready; the node lifecycle controller (not run
  // here) lifts it once the kubelet reports Ready. Do that for it.
  RequireOk(client_->MergePatch(k8s::Nodes(), "", node, R"({"spec":{"taints":null}})").status());
  return node;
}

void TestNamespace::CreateCluster(const std::string& name) {
  RequireOk(client_
                ->Create(SlurmClusters(), name_,
                         absl::StrCat(R"({"apiVersion":"tidepool.dev/v1alpha1",)",
                                      R"("kind":"SlurmCluster","metadata":{"name":")", name,
                                      R"("},"spec":{"clusterName":")", name, R"(",)",
                                      R"("images":{"compute":")", kComputeImage, R"("}}})"))
                .status());
}

void TestNamespace::CreateNodeSet(const std::string& name, const std::string& name_prefix,
                                  std::optional<int> replicas, const std::string& extra_spec,
                                  const std::string& cluster) {
  const std::string json = absl::StrCat(
      R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet","metadata":{"name":")", name,
      R"("},"spec":{"clusterRef":{"name":")", cluster, R"("},"namePrefix":")", name_prefix,
      R"(","nodeSelector":{"tidepool.test/run":")", name_, "\"}",
      replicas.has_value() ? absl::StrCat(R"(,"replicas":)", *replicas) : "",
      R"(,"template":{"metadata":{"labels":{"team":"ml"}},"spec":{"containers":[{"name":"slurmd"}]}})",
      extra_spec.empty() ? "" : ",", extra_spec, "}}");
  RequireOk(client_->Create(NodeSets(), name_, json).status());
}

std::vector<std::string> TestNamespace::PodNames() {
  absl::StatusOr<k8s::ListResult> list = client_->ListAll(k8s::Pods(), name_);
  REQUIRE(list.ok());
  std::vector<std::string> names;
  for (const std::string& item : list->items) names.push_back(k8s::ParseObjectMeta(item)->name);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::string> TestNamespace::Pod(const std::string& name) {
  absl::StatusOr<std::string> pod = client_->Get(k8s::Pods(), name_, name);
  if (absl::IsNotFound(pod.status())) return std::nullopt;
  RequireOk(pod.status());
  return *pod;
}

void TestNamespace::MarkReady(const std::string& pod) {
  RequireOk(client_
                ->MergePatch(k8s::Pods(), name_, pod,
                             R"({"status":{"phase":"Running","conditions":[)"
                             R"({"type":"Ready","status":"True"}]}})",
                             {}, "status")
                .status());
}

void TestNamespace::MarkAllReady() {
  for (const std::string& pod : PodNames()) MarkReady(pod);
}

std::string TestNamespace::NodeSet(const std::string& name) {
  absl::StatusOr<std::string> node_set = client_->Get(NodeSets(), name_, name);
  RequireOk(node_set.status());
  return *node_set;
}

std::optional<int64_t> TestNamespace::StatusField(const std::string& node_set,
                                                  const std::string& field) {
  rapidjson::Document object = Parse(NodeSet(node_set));
  const rapidjson::Value* status = k8s::FindMember(object, "status");
  const rapidjson::Value* value = status ? k8s::FindMember(*status, field.c_str()) : nullptr;
  if (value == nullptr || !value->IsInt64()) return std::nullopt;
  return value->GetInt64();
}

std::string TestNamespace::ConditionReason(const std::string& node_set, const std::string& type) {
  const auto conditions = k8s::ReadConditions(Parse(NodeSet(node_set)));
  auto it = conditions.find(type);
  if (it == conditions.end()) return "";
  return absl::StrCat(it->second.status, "/", it->second.reason);
}

std::vector<std::string> TestNamespace::EventNotes(const std::string& reason) {
  return tidepool::testing::EventNotes(*client_, name_, reason);
}

void TestNamespace::FinishDeletions(std::stop_token stop) {
  while (!stop.stop_requested()) {
    if (auto list = client_->ListAll(k8s::Pods(), name_); list.ok()) {
      for (const std::string& item : list->items) {
        absl::StatusOr<k8s::ObjectMeta> meta = k8s::ParseObjectMeta(item);
        if (meta.ok() && meta->deleting) {
          (void)client_->Delete(k8s::Pods(), name_, meta->name,
                                {.precondition_uid = meta->uid, .grace_period_seconds = 0});
        }
      }
    }
    absl::SleepFor(absl::Milliseconds(250));
  }
}

Controller::Controller(const TestNamespace& ns, const std::string& syncer_address,
                       const std::vector<std::string>& extra_flags) {
  http_port_ = tidepool::testing::FreeLoopbackPort().value();
  std::vector<std::string> flags = {
      "--listen_address=127.0.0.1",
      absl::StrCat("--grpc_port=", tidepool::testing::FreeLoopbackPort().value()),
      absl::StrCat("--http_port=", http_port_),
      "--kubeconfig=" + ns.env().kubeconfig,
      "--syncer_address=" + syncer_address,
      "--watch_namespace=" + ns.name(),
      "--leader_election_namespace=" + ns.name(),
      "--wait_requeue=1s",
      "--log_level=debug"};
  flags.insert(flags.end(), extra_flags.begin(), extra_flags.end());
  absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(Binary(), flags);
  RequireOk(process.status());
  process_.emplace(*std::move(process));
}

Controller::~Controller() {
  (void)process_->Signal(SIGTERM);
  (void)process_->WaitForExit(absl::Seconds(20));
}

std::string Controller::Metrics() {
  absl::StatusOr<tidepool::testing::HttpResponse> response =
      tidepool::testing::HttpGet(absl::StrCat("http://127.0.0.1:", http_port_, "/metrics"));
  return response.ok() ? response->body : "";
}

}  // namespace tidepool::nodeset::testing
