// The node agent (tools/node-agent) against the real API server and the real Slurm test
// environment: Nodes registered Ready with their labels, resources, taints, Leases and
// heartbeats; plain pods run, held not ready and terminated (finalizers honoured); the
// slurm-config ConfigMap projected into Slurm; a real slurmd per slurmd pod, stopped and
// restarted by annotation and stopped when the pod or the agent goes.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/resource.h"
#include "support/child_process.h"
#include "support/eventually.h"
#include "support/json.h"
#include "support/kube_namespace.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

constexpr char kNamespace[] = "tidepool-node-agent-test";
// Slurm nodes the test adds next to the environment's n-[01-03]; fixed names, so repeated
// runs reuse the environment's namespaces and addresses for them.
constexpr char kNewSlurmNodes[] = "agt-[01-02]";
constexpr char kSlurmNodeA[] = "agt-01";
constexpr char kSlurmNodeB[] = "agt-02";

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

bool Eventually(const std::function<bool()>& condition, absl::Duration timeout) {
  return PollUntil(condition, timeout, absl::Milliseconds(250)).has_value();
}

// The API server as the admin, with the test namespace (and the service account that pod
// admission wants; no controller-manager makes it here).
struct Cluster {
  KubernetesEnv env;
  std::unique_ptr<k8s::Client> client;

  Cluster() {
    absl::StatusOr<KubernetesEnv> found = Kubernetes();
    INFO(found.status().ToString());
    REQUIRE(found.ok());
    env = *found;
    absl::StatusOr<k8s::ClientConfig> config = k8s::LoadKubeconfig(env.kubeconfig);
    REQUIRE(config.ok());
    client = std::make_unique<k8s::Client>(*config);
    const absl::Status ns = EnsurePodNamespace(*client, kNamespace);
    INFO(ns.ToString());
    REQUIRE(ns.ok());
  }

  // The object, or nullopt when it does not exist.
  std::optional<rapidjson::Document> Get(const k8s::ResourceType& type, const std::string& ns,
                                         const std::string& name) {
    absl::StatusOr<std::string> json = client->Get(type, ns, name);
    if (absl::IsNotFound(json.status())) return std::nullopt;
    INFO(json.status().ToString());
    REQUIRE(json.ok());
    absl::StatusOr<rapidjson::Document> doc = ParseJson(*json);
    REQUIRE(doc.ok());
    return *std::move(doc);
  }

  rapidjson::Document Require(const k8s::ResourceType& type, const std::string& ns,
                              const std::string& name) {
    std::optional<rapidjson::Document> doc = Get(type, ns, name);
    INFO(name);
    REQUIRE(doc.has_value());
    return *std::move(doc);
  }

  void Patch(const k8s::ResourceType& type, const std::string& name, const std::string& patch) {
    absl::StatusOr<std::string> patched = client->MergePatch(type, kNamespace, name, patch);
    INFO(patched.status().ToString());
    REQUIRE(patched.ok());
  }

  // Clean-up: no assertions, the object may be gone already.
  void ForceDelete(const k8s::ResourceType& type, const std::string& name) {
    (void)client->MergePatch(type, kNamespace, name, R"({"metadata":{"finalizers":null}})");
    (void)client->Delete(type, kNamespace, name, {.grace_period_seconds = 0});
  }
};

// The status of condition `type` of an object ("True", "False"; "" when absent).
std::string Condition(const rapidjson::Value& object, absl::string_view type) {
  const rapidjson::Value* conditions = FindPath(object, "status.conditions");
  if (conditions == nullptr || !conditions->IsArray()) return "";
  for (const rapidjson::Value& condition : conditions->GetArray()) {
    if (StringAt(condition, "type") == type) return StringAt(condition, "status");
  }
  return "";
}

std::string ConditionField(const rapidjson::Value& object, absl::string_view type,
                           absl::string_view field) {
  const rapidjson::Value* conditions = FindPath(object, "status.conditions");
  if (conditions == nullptr || !conditions->IsArray()) return "";
  for (const rapidjson::Value& condition : conditions->GetArray()) {
    if (StringAt(condition, "type") == type) return StringAt(condition, field);
  }
  return "";
}

int64_t IntAt(const rapidjson::Value& root, absl::string_view path) {
  const rapidjson::Value* value = FindPath(root, path);
  return value != nullptr && value->IsInt64() ? value->GetInt64() : -1;
}

bool BoolAt(const rapidjson::Value& root, absl::string_view path) {
  const rapidjson::Value* value = FindPath(root, path);
  return value != nullptr && value->IsBool() && value->GetBool();
}

// A member whose name has dots (a label key, a resource name) of the object at `path`.
std::string Member(const rapidjson::Value& root, absl::string_view path, const char* key) {
  const rapidjson::Value* object = FindPath(root, path);
  if (object == nullptr || !object->IsObject()) return "";
  auto it = object->FindMember(key);
  return it != object->MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

std::string PodJson(const std::string& name, const std::string& node,
                    const std::string& slurm_node = "", bool with_finalizer = false) {
  const std::string labels =
      slurm_node.empty()
          ? R"({"app":"plain"})"
          : absl::StrCat(R"({"tidepool.dev/component":"slurmd","tidepool.dev/slurm-node":")",
                         slurm_node, R"("})");
  return absl::StrCat(
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")", name, R"(","labels":)", labels,
      with_finalizer ? R"(,"finalizers":["test.tidepool.dev/hold"])" : "",
      R"(},"spec":{"nodeName":")", node, R"(","tolerations":[{"operator":"Exists"}],)",
      R"("containers":[{"name":"main","image":"registry.invalid/test:1"}]}})");
}

// A node-agent process; stopped with SIGTERM (so it cleans up) when the test ends.
class Agent {
 public:
  Agent(const Cluster& cluster, const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--kubeconfig=" + cluster.env.kubeconfig, "--log_level=debug",
                                    "--cleanup_nodes"};
    all.insert(all.end(), args.begin(), args.end());
    absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(TIDEPOOL_NODE_AGENT, all);
    INFO(child.status().ToString());
    REQUIRE(child.ok());
    process_.emplace(*std::move(child));
  }
  ~Agent() {
    if (process_ && process_->Running()) (void)Stop();
  }

  // SIGTERM; the exit code (-1 when it did not exit within 60 s).
  int Stop() {
    (void)process_->Signal(SIGTERM);
    absl::StatusOr<int> code = process_->WaitForExit(absl::Seconds(60));
    return code.ok() ? *code : -1;
  }
  std::string Output() const { return process_->Output(); }

 private:
  std::optional<ChildProcess> process_;
};

std::string NodePrefix(absl::string_view test) {
  return absl::StrCat("nat-", getpid() % 100000, "-", test, "-");
}

// ---- plain Nodes and pods ----------------------------------------------------------------

void CheckNodeRegistered(Cluster& cluster, const std::string& name) {
  const rapidjson::Document node = cluster.Require(k8s::Nodes(), "", name);
  CHECK(Condition(node, "Ready") == "True");
  CHECK(Condition(node, "MemoryPressure") == "False");
  CHECK(Member(node, "metadata.labels", "team") == "ml");
  CHECK(Member(node, "metadata.labels", "kubernetes.io/hostname") == name);
  CHECK(Member(node, "metadata.labels", "nvidia.com/gpu.product") == "NVIDIA-H100-80GB-HBM3");
  CHECK(Member(node, "metadata.labels", "nvidia.com/gpu.count") == "8");
  CHECK(Member(node, "status.allocatable", "cpu") == "8");
  CHECK(Member(node, "status.allocatable", "memory") == "32Gi");
  CHECK(Member(node, "status.allocatable", "nvidia.com/gpu") == "8");
  CHECK(Member(node, "status.capacity", "nvidia.com/gpu") == "8");
  CHECK(StringAt(node, "status.addresses.0.type") == "InternalIP");
  CHECK(absl::StartsWith(StringAt(node, "status.addresses.0.address"), "10.77."));
  CHECK(StringAt(node, "status.nodeInfo.operatingSystem") == "linux");
  // Our taint; the API server's not-ready taint is gone once the Node is Ready.
  const rapidjson::Value* taints = FindPath(node, "spec.taints");
  REQUIRE(taints != nullptr);
  REQUIRE(taints->IsArray());
  REQUIRE(taints->Size() == 1);
  CHECK(StringAt((*taints)[0], "key") == "dedicated");
  CHECK(StringAt((*taints)[0], "value") == "gpu");
  CHECK(StringAt((*taints)[0], "effect") == "NoSchedule");
}

void CheckLeaseAndHeartbeatRenewed(Cluster& cluster, const std::string& name) {
  const rapidjson::Document lease = cluster.Require(k8s::Leases(), "kube-node-lease", name);
  CHECK(StringAt(lease, "spec.holderIdentity") == name);
  CHECK(IntAt(lease, "spec.leaseDurationSeconds") == 40);
  CHECK(StringAt(lease, "metadata.ownerReferences.0.kind") == "Node");
  const std::string renewed = StringAt(lease, "spec.renewTime");
  CHECK(Eventually(
      [&] {
        return StringAt(cluster.Require(k8s::Leases(), "kube-node-lease", name),
                        "spec.renewTime") != renewed;
      },
      absl::Seconds(10)));
  const std::string heartbeat =
      ConditionField(cluster.Require(k8s::Nodes(), "", name), "Ready", "lastHeartbeatTime");
  CHECK(Eventually(
      [&] {
        return ConditionField(cluster.Require(k8s::Nodes(), "", name), "Ready",
                              "lastHeartbeatTime") != heartbeat;
      },
      absl::Seconds(10)));
}

bool PodReady(Cluster& cluster, const std::string& name, const std::string& want = "True") {
  std::optional<rapidjson::Document> pod = cluster.Get(k8s::Pods(), kNamespace, name);
  return pod && Condition(*pod, "Ready") == want;
}

bool PodGone(Cluster& cluster, const std::string& name) {
  return !cluster.Get(k8s::Pods(), kNamespace, name).has_value();
}

TEST_CASE("node agent registers Ready Nodes and runs, holds and terminates plain pods") {
  Cluster cluster;
  const std::string prefix = NodePrefix("plain");
  const std::string node_a = prefix + "01";
  const std::string node_b = prefix + "02";
  const std::string pod = prefix + "pod";
  const std::string held = prefix + "held";
  struct CleanUp {
    Cluster& cluster;
    std::vector<std::string> pods;
    ~CleanUp() {
      for (const std::string& name : pods) cluster.ForceDelete(k8s::Pods(), name);
    }
  } clean_up{cluster, {pod, held}};
  const std::string labels_file = absl::StrCat("/tmp/", prefix, "labels");
  std::ofstream(labels_file) << "# per-node labels\n" << node_b << " zone=b,tier=b\n";
  Agent agent(cluster, {"--nodes=2", "--node_prefix=" + prefix, "--labels=team=ml,tier=a",
                        "--node_labels_file=" + labels_file, "--gpu_count=8",
                        "--gpu_product=NVIDIA-H100-80GB-HBM3", "--cpu=8", "--memory=32Gi",
                        "--taints=dedicated=gpu:NoSchedule", "--lease_interval=1s",
                        "--heartbeat_interval=2s", "--slurm_testenv="});
  INFO(agent.Output());

  REQUIRE(Eventually(
      [&] {
        std::optional<rapidjson::Document> b = cluster.Get(k8s::Nodes(), "", node_b);
        return b && Condition(*b, "Ready") == "True";
      },
      absl::Seconds(30)));
  CheckNodeRegistered(cluster, node_a);
  CheckNodeRegistered(cluster, node_b);
  std::filesystem::remove(labels_file);
  // --node_labels_file adds to (and overrides) --labels for the Nodes it names.
  const rapidjson::Document a = cluster.Require(k8s::Nodes(), "", node_a);
  const rapidjson::Document b = cluster.Require(k8s::Nodes(), "", node_b);
  CHECK(Member(a, "metadata.labels", "tier") == "a");
  CHECK(Member(a, "metadata.labels", "zone").empty());
  CHECK(Member(b, "metadata.labels", "tier") == "b");
  CHECK(Member(b, "metadata.labels", "zone") == "b");
  CheckLeaseAndHeartbeatRenewed(cluster, node_a);

  // A pod bound to a simulated Node runs and is Ready.
  REQUIRE(cluster.client->Create(k8s::Pods(), kNamespace, PodJson(pod, node_a)).ok());
  REQUIRE(Eventually([&] { return PodReady(cluster, pod); }, absl::Seconds(20)));
  const rapidjson::Document running = cluster.Require(k8s::Pods(), kNamespace, pod);
  CHECK(StringAt(running, "status.phase") == "Running");
  CHECK(Condition(running, "ContainersReady") == "True");
  CHECK(Condition(running, "PodScheduled") == "True");
  CHECK(Condition(running, "Initialized") == "True");
  CHECK(BoolAt(running, "status.containerStatuses.0.ready"));
  CHECK(FindPath(running, "status.containerStatuses.0.state.running") != nullptr);
  CHECK_FALSE(StringAt(running, "status.podIP").empty());
  CHECK_FALSE(StringAt(running, "status.startTime").empty());
  CHECK(StringAt(running, "status.hostIP") ==
        StringAt(cluster.Require(k8s::Nodes(), "", node_a), "status.addresses.0.address"));

  // The test control: ready=false holds it not ready while it keeps running.
  cluster.Patch(k8s::Pods(), pod,
                R"({"metadata":{"annotations":{"agent.tidepool.dev/ready":"false"}}})");
  REQUIRE(Eventually([&] { return PodReady(cluster, pod, "False"); }, absl::Seconds(15)));
  const rapidjson::Document held_not_ready = cluster.Require(k8s::Pods(), kNamespace, pod);
  CHECK(Condition(held_not_ready, "ContainersReady") == "False");
  CHECK(StringAt(held_not_ready, "status.phase") == "Running");
  cluster.Patch(k8s::Pods(), pod,
                R"({"metadata":{"annotations":{"agent.tidepool.dev/ready":null}}})");
  REQUIRE(Eventually([&] { return PodReady(cluster, pod); }, absl::Seconds(15)));

  // Deleted with the default 30 s grace period, it is gone as soon as the agent has
  // finished its termination.
  REQUIRE(cluster.client->Delete(k8s::Pods(), kNamespace, pod).ok());
  CHECK(Eventually([&] { return PodGone(cluster, pod); }, absl::Seconds(10)));

  // With a finalizer the API server keeps it until the finalizer goes.
  REQUIRE(cluster.client->Create(k8s::Pods(), kNamespace, PodJson(held, node_b, "", true)).ok());
  REQUIRE(Eventually([&] { return PodReady(cluster, held); }, absl::Seconds(20)));
  REQUIRE(cluster.client->Delete(k8s::Pods(), kNamespace, held).ok());
  REQUIRE(Eventually(
      [&] {
        std::optional<rapidjson::Document> p = cluster.Get(k8s::Pods(), kNamespace, held);
        return p && IntAt(*p, "metadata.deletionGracePeriodSeconds") == 0;
      },
      absl::Seconds(10)));
  absl::SleepFor(absl::Seconds(1));
  CHECK_FALSE(PodGone(cluster, held));
  cluster.Patch(k8s::Pods(), held, R"({"metadata":{"finalizers":null}})");
  CHECK(Eventually([&] { return PodGone(cluster, held); }, absl::Seconds(10)));

  // SIGTERM: a clean exit, and --cleanup_nodes removes the Nodes and their Leases.
  CHECK(agent.Stop() == 0);
  CHECK_FALSE(cluster.Get(k8s::Nodes(), "", node_a).has_value());
  CHECK_FALSE(cluster.Get(k8s::Nodes(), "", node_b).has_value());
  CHECK_FALSE(cluster.Get(k8s::Leases(), "kube-node-lease", node_a).has_value());
}

TEST_CASE("node agent refuses bad flags (exit 2) and an environment that is not there (exit 1)") {
  for (const auto& [flag, named] :
       std::vector<std::pair<std::string, std::string>>{{"--taints=dedicated", "--taints"},
                                                        {"--labels=novalue", "--labels"},
                                                        {"--memory=lots", "--memory"},
                                                        {"--nodes=0", "--nodes"}}) {
    absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(TIDEPOOL_NODE_AGENT, {flag});
    REQUIRE(child.ok());
    absl::StatusOr<int> code = child->WaitForExit(absl::Seconds(20));
    INFO(flag << ": " << child->Output());
    REQUIRE(code.ok());
    CHECK(*code == 2);
    CHECK(absl::StrContains(child->Output(), named));
  }
  Cluster cluster;
  absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(
      TIDEPOOL_NODE_AGENT, {"--kubeconfig=" + cluster.env.kubeconfig,
                            "--node_prefix=" + NodePrefix("nosl"), "--slurm_testenv=/nonexistent"});
  REQUIRE(child.ok());
  absl::StatusOr<int> code = child->WaitForExit(absl::Seconds(20));
  INFO(child->Output());
  REQUIRE(code.ok());
  CHECK(*code == 1);
  CHECK(absl::StrContains(child->Output(), "start-slurmd"));
  CHECK_FALSE(cluster.Get(k8s::Nodes(), "", NodePrefix("nosl") + "01").has_value());
}

// ---- Slurm: configuration projection and slurmd pods ---------------------------------------

SlurmEnv RequireSlurm() {
  absl::StatusOr<SlurmEnv> env = Slurm();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  return *std::move(env);
}

// slurm.conf as the environment was given it: without the block the environment appends,
// and without what an interrupted earlier run of this test may have left in it.
std::string OriginalSlurmConf(const SlurmEnv& slurm) {
  std::string conf = ReadText(slurm.conf_dir + "/slurm.conf");
  const size_t injected = conf.find("# --- tidepool testenv: injected");
  if (injected != std::string::npos) conf.resize(injected);
  std::vector<std::string> kept;
  for (absl::string_view line : absl::StrSplit(conf, '\n')) {
    if (absl::StartsWith(line, absl::StrCat("NodeName=", kNewSlurmNodes))) continue;
    kept.push_back(absl::StrReplaceAll(line, {{absl::StrCat(",", kNewSlurmNodes), ""}}));
  }
  return absl::StrJoin(kept, "\n");
}

// `conf` with a NodeName line for `hostlist` after its last NodeName line, and the nodes in
// the default partition (unless it takes Nodes=ALL).
std::string WithExtraNodes(const std::string& conf, const std::string& hostlist) {
  std::vector<std::string> lines = absl::StrSplit(conf, '\n');
  size_t last_node_line = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (absl::StartsWithIgnoreCase(lines[i], "NodeName=")) last_node_line = i;
    const bool default_partition =
        absl::StartsWithIgnoreCase(lines[i], "PartitionName=") &&
        absl::StrContains(absl::AsciiStrToLower(lines[i]), "default=yes");
    if (default_partition && !absl::StrContains(absl::AsciiStrToLower(lines[i]), "nodes=all")) {
      const size_t nodes = lines[i].find("Nodes=");
      const size_t end = lines[i].find(' ', nodes);
      lines[i].insert(end == std::string::npos ? lines[i].size() : end, "," + hostlist);
    }
  }
  lines.insert(lines.begin() + static_cast<long>(last_node_line) + 1,
               absl::StrCat("NodeName=", hostlist, " CPUs=2 RealMemory=1024 State=UNKNOWN"));
  return absl::StrJoin(lines, "\n");
}

// Saves the environment's configuration and applies it again at the end, so the other
// tests find n-[01-03] and nothing else.
class SlurmConfigGuard {
 public:
  explicit SlurmConfigGuard(const SlurmEnv& slurm) : slurm_(slurm) {
    char pattern[] = "/tmp/tidepool-agent-test-XXXXXX";
    REQUIRE(mkdtemp(pattern) != nullptr);
    dir_ = pattern;
    for (const auto& entry : std::filesystem::directory_iterator(slurm.conf_dir)) {
      const std::string name = entry.path().filename().string();
      if (!entry.is_regular_file() || name == "slurm.conf" || name == "slurmdbd.conf") continue;
      std::filesystem::copy_file(entry.path(), dir_ + "/" + name);
    }
    std::ofstream(dir_ + "/slurm.conf") << OriginalSlurmConf(slurm);
  }
  ~SlurmConfigGuard() {
    if (!restored_) (void)Restore();
    std::filesystem::remove_all(dir_);
  }

  // reconfigure with the saved files; the script's output when it failed.
  std::optional<std::string> Restore() {
    restored_ = true;
    absl::StatusOr<CommandResult> result =
        RunCommand({slurm_.vars.at("TIDEPOOL_SLURM_TOOLS") + "/reconfigure", "--config-dir", dir_},
                   absl::Minutes(3));
    if (!result.ok()) return result.status().ToString();
    if (result->exit_code != 0) return result->output;
    return std::nullopt;
  }

 private:
  const SlurmEnv& slurm_;
  std::string dir_;
  bool restored_ = false;
};

bool SlurmKnows(const SlurmEnv& slurm, const std::string& node) {
  absl::StatusOr<CommandResult> shown = SlurmExec(slurm, {"scontrol", "show", "node", node});
  return shown.ok() && shown->exit_code == 0;
}

std::string SinfoState(const SlurmEnv& slurm, const std::string& node) {
  absl::StatusOr<CommandResult> shown = SlurmExec(slurm, {"sinfo", "-h", "-n", node, "-o", "%t"});
  if (!shown.ok() || shown->exit_code != 0) return "";
  return std::string(absl::StripAsciiWhitespace(shown->output));
}

// Whether the environment's slurmd of `node` runs (its pid file names a live process).
bool SlurmdAlive(const SlurmEnv& slurm, const std::string& node) {
  const std::string pid = std::string(absl::StripAsciiWhitespace(
      ReadText(absl::StrCat(slurm.vars.at("TIDEPOOL_SLURM_RUN_DIR"), "/pids/slurmd-", node))));
  if (pid.empty()) return false;
  const std::string status = ReadText(absl::StrCat("/proc/", pid, "/status"));
  return !status.empty() && !absl::StrContains(status, "State:\tZ");
}

std::string ConfigMapJson(const std::string& name, const std::string& slurm_conf) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& allocator = doc.GetAllocator();
  doc.AddMember("apiVersion", "v1", allocator).AddMember("kind", "ConfigMap", allocator);
  rapidjson::Value metadata(rapidjson::kObjectType);
  metadata.AddMember("name", rapidjson::Value(name.c_str(), allocator), allocator);
  rapidjson::Value labels(rapidjson::kObjectType);
  labels.AddMember("tidepool.dev/component", "slurm-config", allocator);
  metadata.AddMember("labels", labels, allocator);
  doc.AddMember("metadata", metadata, allocator);
  rapidjson::Value data(rapidjson::kObjectType);
  data.AddMember("slurm.conf", rapidjson::Value(slurm_conf.c_str(), allocator), allocator);
  doc.AddMember("data", data, allocator);
  return ToJson(doc);
}

TEST_CASE("node agent projects the Slurm configuration and runs a real slurmd per slurmd pod") {
  Cluster cluster;
  const SlurmEnv slurm = RequireSlurm();
  const std::string prefix = NodePrefix("slurm");
  const std::string node_a = prefix + "01";
  const std::string node_b = prefix + "02";
  const std::string config_map = prefix + "slurm-config";
  SlurmConfigGuard guard(slurm);  // destroyed after the agent: slurmds stop first
  struct CleanUp {
    Cluster& cluster;
    std::string config_map;
    ~CleanUp() {
      for (const char* name : {kSlurmNodeA, kSlurmNodeB}) cluster.ForceDelete(k8s::Pods(), name);
      cluster.ForceDelete(k8s::ConfigMaps(), config_map);
    }
  } clean_up{cluster, config_map};
  Agent agent(cluster, {"--nodes=2", "--node_prefix=" + prefix,
                        std::string("--config_namespace=") + kNamespace, "--resync_interval=1s",
                        "--slurmd_stop_grace=3s"});
  INFO(agent.Output());
  REQUIRE(Eventually([&] { return cluster.Get(k8s::Nodes(), "", node_b).has_value(); },
                     absl::Seconds(30)));

  // A slurmd pod for a node Slurm does not know yet waits (not Ready, no slurmd).
  REQUIRE(cluster.client->Create(k8s::Pods(), kNamespace, PodJson(kSlurmNodeA, node_a, kSlurmNodeA))
              .ok());
  REQUIRE(Eventually(
      [&] {
        std::optional<rapidjson::Document> pod = cluster.Get(k8s::Pods(), kNamespace, kSlurmNodeA);
        return pod && Condition(*pod, "PodScheduled") == "True";
      },
      absl::Seconds(20)));
  const rapidjson::Document waiting = cluster.Require(k8s::Pods(), kNamespace, kSlurmNodeA);
  CHECK(Condition(waiting, "Ready") == "False");
  CHECK(StringAt(waiting, "status.phase") == "Pending");
  CHECK(absl::StrContains(StringAt(waiting, "status.containerStatuses.0.state.waiting.message"),
                          "does not know"));
  CHECK_FALSE(SlurmdAlive(slurm, kSlurmNodeA));

  // The rendered configuration, as the cluster-controller would publish it.
  const absl::Time projected_at = absl::Now();
  REQUIRE(cluster.client
              ->Create(k8s::ConfigMaps(), kNamespace,
                       ConfigMapJson(config_map,
                                     WithExtraNodes(OriginalSlurmConf(slurm), kNewSlurmNodes)))
              .ok());
  REQUIRE(
      Eventually([&] { return SlurmKnows(slurm, kSlurmNodeA) && SlurmKnows(slurm, kSlurmNodeB); },
                 absl::Seconds(90)));
  std::printf("node agent: configuration projected into slurmctld after %s\n",
              absl::FormatDuration(absl::Now() - projected_at).c_str());
  CHECK(SlurmKnows(slurm, "n-01"));

  // Now the pod gets a real slurmd, which registers: idle in Slurm, Ready in Kubernetes.
  REQUIRE(Eventually([&] { return PodReady(cluster, kSlurmNodeA); }, absl::Seconds(60)));
  CHECK(SlurmdAlive(slurm, kSlurmNodeA));
  CHECK(Eventually([&] { return SinfoState(slurm, kSlurmNodeA) == "idle"; }, absl::Seconds(30)));
  CHECK(absl::StartsWith(
      StringAt(cluster.Require(k8s::Pods(), kNamespace, kSlurmNodeA), "status.podIP"), "10.77."));

  // ready=false flips only the Ready condition; slurmd keeps running.
  cluster.Patch(k8s::Pods(), kSlurmNodeA,
                R"({"metadata":{"annotations":{"agent.tidepool.dev/ready":"false"}}})");
  REQUIRE(Eventually([&] { return PodReady(cluster, kSlurmNodeA, "False"); }, absl::Seconds(15)));
  CHECK(SlurmdAlive(slurm, kSlurmNodeA));
  cluster.Patch(k8s::Pods(), kSlurmNodeA,
                R"({"metadata":{"annotations":{"agent.tidepool.dev/ready":null}}})");
  REQUIRE(Eventually([&] { return PodReady(cluster, kSlurmNodeA); }, absl::Seconds(15)));

  // slurmd=stopped kills slurmd (pod not Ready); removing it starts slurmd again.
  cluster.Patch(k8s::Pods(), kSlurmNodeA,
                R"({"metadata":{"annotations":{"agent.tidepool.dev/slurmd":"stopped"}}})");
  REQUIRE(Eventually([&] { return !SlurmdAlive(slurm, kSlurmNodeA); }, absl::Seconds(15)));
  CHECK(Eventually([&] { return PodReady(cluster, kSlurmNodeA, "False"); }, absl::Seconds(15)));
  cluster.Patch(k8s::Pods(), kSlurmNodeA,
                R"({"metadata":{"annotations":{"agent.tidepool.dev/slurmd":null}}})");
  REQUIRE(Eventually([&] { return PodReady(cluster, kSlurmNodeA); }, absl::Seconds(30)));
  CHECK(SlurmdAlive(slurm, kSlurmNodeA));
  CHECK(IntAt(cluster.Require(k8s::Pods(), kNamespace, kSlurmNodeA),
              "status.containerStatuses.0.restartCount") == 1);

  // A second slurmd pod on the other Node.
  REQUIRE(cluster.client->Create(k8s::Pods(), kNamespace, PodJson(kSlurmNodeB, node_b, kSlurmNodeB))
              .ok());
  REQUIRE(Eventually([&] { return PodReady(cluster, kSlurmNodeB); }, absl::Seconds(30)));
  CHECK(SlurmdAlive(slurm, kSlurmNodeB));

  // Deleting the pod stops its slurmd, then the pod is gone.
  REQUIRE(cluster.client->Delete(k8s::Pods(), kNamespace, kSlurmNodeA).ok());
  CHECK(Eventually([&] { return PodGone(cluster, kSlurmNodeA); }, absl::Seconds(20)));
  CHECK(Eventually([&] { return !SlurmdAlive(slurm, kSlurmNodeA); }, absl::Seconds(10)));
  CHECK(SlurmdAlive(slurm, kSlurmNodeB));

  // SIGTERM stops the slurmds the agent runs.
  CHECK(agent.Stop() == 0);
  CHECK(Eventually([&] { return !SlurmdAlive(slurm, kSlurmNodeB); }, absl::Seconds(10)));

  // The environment's own configuration again: n-[01-03] only.
  std::optional<std::string> restore_error = guard.Restore();
  INFO(restore_error.value_or(""));
  REQUIRE_FALSE(restore_error.has_value());
  CHECK_FALSE(SlurmKnows(slurm, kSlurmNodeA));
  for (const std::string& node : slurm.node_names) CHECK(SlurmKnows(slurm, node));
}

}  // namespace
}  // namespace tidepool::testing
