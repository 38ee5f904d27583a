#include "tidepool/node_label_keys.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

#include "k8s/client.h"
#include "k8s/resource.h"

namespace tidepool::api {
namespace {

// An informer never started: its relists are answered by the kSynced events handed to it.
struct NodeCache {
  k8s::Client client{k8s::ClientConfig{.server = "https://127.0.0.1:1"}};
  k8s::Informer nodes{client, k8s::Nodes(), ""};

  void ListAnswering(uint64_t requests) {
    k8s::WatchEvent synced;
    synced.type = k8s::WatchEventType::kSynced;
    synced.relists_answered = requests;
    nodes.HandleEvent(synced);
  }
};

google::protobuf::Map<std::string, std::string> Labels() {
  google::protobuf::Map<std::string, std::string> labels;
  labels["tidepool.dev/slurm-node"] = "gpu-1";
  labels["feature.node.kubernetes.io/cpu-cpuid.AVX512F"] = "true";
  labels["topology.kubernetes.io/zone"] = "a";
  return labels;
}

TEST_CASE("a Node cache keeps the labels kept from the start, and no others") {
  NodeLabelKeys keys({"tidepool.dev/slurm-node"});
  google::protobuf::Map<std::string, std::string> labels = Labels();
  keys.Filter(labels);
  CHECK(labels.size() == 1);
  CHECK(labels.at("tidepool.dev/slurm-node") == "gpu-1");
}

TEST_CASE("labels kept from the start are there at once: no relist") {
  NodeCache cache;
  NodeLabelKeys keys({"tidepool.dev/slurm-node"});
  CHECK(keys.Require({"tidepool.dev/slurm-node"}, cache.nodes).ok());
  CHECK(keys.Require({}, cache.nodes).ok());
  CHECK(keys.size() == 1);
}

TEST_CASE("a new label is kept at once, and readable once a relist after it is read") {
  NodeCache cache;
  NodeLabelKeys keys({"tidepool.dev/slurm-node"});
  cache.ListAnswering(0);  // the first list, before the label was asked for
  const absl::Status first = keys.Require({"topology.kubernetes.io/zone"}, cache.nodes);
  CHECK(first.code() == absl::StatusCode::kUnavailable);
  CHECK(first.message() ==
        "the Node cache is listing every Node again to keep label(s) topology.kubernetes.io/zone; "
        "retrying once that list has been read");
  // The parse of the relist keeps it already.
  google::protobuf::Map<std::string, std::string> labels = Labels();
  keys.Filter(labels);
  CHECK(labels.size() == 2);
  CHECK(labels.contains("topology.kubernetes.io/zone"));
  // Asked again before the relist is read: still waiting, no second relist.
  CHECK(absl::IsUnavailable(keys.Require({"topology.kubernetes.io/zone"}, cache.nodes)));
  CHECK(cache.nodes.RequestRelist() == 2);  // only one was requested before
  cache.ListAnswering(1);
  CHECK(keys.Require({"topology.kubernetes.io/zone", "tidepool.dev/slurm-node"}, cache.nodes).ok());
}

TEST_CASE("a label asked for while a relist is pending waits for a relist after it") {
  NodeCache cache;
  NodeLabelKeys keys;
  cache.ListAnswering(0);
  CHECK(absl::IsUnavailable(keys.Require({"a"}, cache.nodes)));  // relist 1
  CHECK(absl::IsUnavailable(keys.Require({"b"}, cache.nodes)));  // relist 2
  // A list that started before "b" was kept may not have read it.
  cache.ListAnswering(1);
  CHECK(keys.Require({"a"}, cache.nodes).ok());
  const absl::Status both = keys.Require({"a", "b"}, cache.nodes);
  CHECK(absl::IsUnavailable(both));
  CHECK(both.message() ==
        "the Node cache is listing every Node again to keep label(s) b; retrying once that list "
        "has been read");
  cache.ListAnswering(2);
  CHECK(keys.Require({"a", "b"}, cache.nodes).ok());
  CHECK(keys.size() == 2);
}

}  // namespace
}  // namespace tidepool::api
