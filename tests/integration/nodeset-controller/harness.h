#pragma once

// What the nodeset-controller integration tests share: a namespace of their own with
// the CRDs applied, simulated Nodes (no kubelet), a stand-in that finishes pod deletions
// as a kubelet would, the controller binary as a process, and polling helpers.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"
#include "k8s/client.h"
#include "support/child_process.h"
#include "support/testenv.h"
#include "tidepool/resource_types.h"

namespace tidepool::nodeset::testing {

using tidepool::testing::ChildProcess;
using tidepool::testing::KubernetesEnv;

using api::NodeSets;
using api::SlurmClusters;

// Polls `done` every 200 ms until it holds or `timeout` passes.
bool WaitUntil(const std::function<bool()>& done, absl::Duration timeout = absl::Seconds(30));

// A namespace for one test run, with the CRDs established, its "default"
// ServiceAccount (no controller-manager makes it) and a SlurmCluster "research" whose
// compute image is kComputeImage. Deletes its Nodes, NodeSets, pods and namespace when
// destroyed.
inline constexpr char kComputeImage[] = "example.invalid/slurmd:test";
class TestNamespace {
 public:
  TestNamespace();
  ~TestNamespace();
  TestNamespace(const TestNamespace&) = delete;
  TestNamespace& operator=(const TestNamespace&) = delete;

  k8s::Client& client() { return *client_; }
  const KubernetesEnv& env() const { return env_; }
  const std::string& name() const { return name_; }
  // The label every Node of this run has (tidepool.test/run=<namespace>).
  std::string RunSelector() const;

  // A Node labelled for this run (plus `labels`, JSON object members) with room for pods.
  std::string CreateNode(const std::string& suffix, const std::string& extra_labels = "");
  // A SlurmCluster in this namespace whose compute image is kComputeImage.
  void CreateCluster(const std::string& name);
  // A NodeSet of `cluster` in this namespace selecting this run's Nodes.
  void CreateNodeSet(const std::string& name, const std::string& name_prefix,
                     std::optional<int> replicas, const std::string& extra_spec = "",
                     const std::string& cluster = "research");

  std::vector<std::string> PodNames();
  std::optional<std::string> Pod(const std::string& name);  // JSON, nullopt when absent
  // Sets the pod's Ready condition (as a kubelet would) through the status subresource.
  void MarkReady(const std::string& pod);
  void MarkAllReady();
  std::string NodeSet(const std::string& name);
  std::optional<int64_t> StatusField(const std::string& node_set, const std::string& field);
  std::string ConditionReason(const std::string& node_set, const std::string& type);
  // The notes of the Events about `node_set` with this reason.
  std::vector<std::string> EventNotes(const std::string& reason);

 private:
  // Finishes graceful pod deletions (grace 0), as the kubelet would after slurmd exits.
  void FinishDeletions(std::stop_token stop);

  KubernetesEnv env_;
  std::unique_ptr<k8s::Client> client_;
  std::string name_;
  std::vector<std::string> nodes_;
  std::jthread kubelet_;
};

// The nodeset-controller binary watching `ns` (lease there too) on free ports.
class Controller {
 public:
  Controller(const TestNamespace& ns, const std::string& syncer_address,
             const std::vector<std::string>& extra_flags = {});
  ~Controller();
  std::string Output() const { return process_->Output(); }
  std::string Metrics();

 private:
  uint16_t http_port_ = 0;
  std::optional<ChildProcess> process_;
};

}  // namespace tidepool::nodeset::testing
