// Heap per cached Node and slurmd pod, for each way a Tidepool service caches them: N
// copies of a real Node and a real slurmd pod (tools/bench/fixtures/, taken from the
// 1,000-node bench's system with `kubectl get -o json`, managedFields removed) renamed
// 0..N-1 and fed as watch lines through ParseWatchEvent + Informer::HandleEvent with the
// parse_view each service sets. Prints the heap in use per object (glibc's mallinfo2)
// and what N objects cost, so a change to the cache can be measured in seconds rather
// than in a 45-minute 10,000-node run. No API server is needed. Not run by ctest.
// --node-labels L gives the Node L labels, adding feature discovery's kind ("feature.node.
// kubernetes.io/cpu-cpuid.…": "true") to its own: the fixture, a simulated Node, has 7, a
// real GPU Node tens.
//
//   cache_memory_bench [--objects N] [--fixtures DIR] [--node-labels L]
#include <malloc.h>

#include <any>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "k8s/client.h"
#include "k8s/informer.h"
#include "k8s/object_json.h"
#include "k8s/watch.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "render_inputs.h"
#include "tidepool/contract.h"
#include "tidepool/node_view.h"
#include "tidepool/pod_view.h"
#include "tidepool/render_labels.h"

namespace {

using tidepool::k8s::Informer;
namespace api = tidepool::api;
namespace cluster = tidepool::cluster;
namespace v1 = tidepool::v1;
using ParseView = std::function<std::any(absl::string_view)>;

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

int64_t HeapInUse() {
  malloc_trim(0);
  return static_cast<int64_t>(mallinfo2().uordblks);
}

void SetString(rapidjson::Value& object, const char* name, const std::string& value,
               rapidjson::Document::AllocatorType& allocator) {
  rapidjson::Value text(value.c_str(), static_cast<rapidjson::SizeType>(value.size()), allocator);
  if (auto it = object.FindMember(name); it != object.MemberEnd()) {
    it->value = text;
  } else {
    object.AddMember(rapidjson::Value(name, allocator), text, allocator);
  }
}

// The fixture as object `i`: its name, uid and (for a pod) the Node and Slurm node it is on
// made unique, so every copy is stored and indexed as its own object.
std::string Renamed(const rapidjson::Document& fixture, int i, bool pod) {
  rapidjson::Document copy;
  copy.CopyFrom(fixture, copy.GetAllocator());
  auto& allocator = copy.GetAllocator();
  rapidjson::Value& meta = copy["metadata"];
  const std::string node = absl::StrCat("sim-", i);
  SetString(meta, "name", pod ? absl::StrCat("gpu-", i) : node, allocator);
  SetString(meta, "uid", absl::StrCat("00000000-0000-0000-0000-", 100000000000 + i), allocator);
  if (pod) {
    if (meta.HasMember("labels") && meta["labels"].IsObject()) {
      SetString(meta["labels"], tidepool::api::kSlurmNodeLabel, absl::StrCat("gpu-", i), allocator);
    }
    SetString(copy["spec"], "nodeName", node, allocator);
  } else if (meta.HasMember("labels") && meta["labels"].IsObject()) {
    SetString(meta["labels"], "kubernetes.io/hostname", node, allocator);
  }
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  copy.Accept(writer);
  return out.GetString();
}

struct Case {
  const char* what;
  const char* who;
  bool pod;
  ParseView parse_view;
  bool keep_viewed_json = false;  // as the services set it
  bool keep_viewed_labels = true;
};

// Heap per object after `n` watch events through an informer set up as `c` says.
double MeasureCase(const Case& c, const rapidjson::Document& fixture, int n) {
  std::vector<std::string> lines;
  lines.reserve(n);
  for (int i = 0; i < n; ++i) {
    lines.push_back(absl::StrCat(R"({"type":"ADDED","object":)", Renamed(fixture, i, c.pod), "}"));
  }
  tidepool::k8s::ClientConfig config;
  config.server = "https://127.0.0.1:1";
  tidepool::k8s::Client client(config);
  const int64_t before = HeapInUse();
  int64_t after = 0;
  {
    Informer informer(client, c.pod ? tidepool::k8s::Pods() : tidepool::k8s::Nodes(), "",
                      {.parse_view = c.parse_view,
                       .keep_viewed_json = c.keep_viewed_json,
                       .keep_viewed_labels = c.keep_viewed_labels});
    for (const std::string& line : lines) {
      absl::StatusOr<tidepool::k8s::WatchEvent> event = tidepool::k8s::ParseWatchEvent(line);
      if (!event.ok()) {
        std::fprintf(stderr, "fixture unreadable: %s\n", event.status().ToString().c_str());
        return -1;
      }
      informer.HandleEvent(*event);
    }
    if (c.pod) informer.ListByLabel(tidepool::api::kClusterLabel, "bench");  // builds the index
    after = HeapInUse();
  }
  return static_cast<double>(after - before) / n;
}

// Adds labels to `node` until it has `labels` of them.
void PadLabels(rapidjson::Document& node, int labels) {
  auto& allocator = node.GetAllocator();
  rapidjson::Value& meta = node["metadata"];
  if (!meta.HasMember("labels") || !meta["labels"].IsObject()) {
    meta.RemoveMember("labels");
    meta.AddMember("labels", rapidjson::Value(rapidjson::kObjectType), allocator);
  }
  rapidjson::Value& map = meta["labels"];
  for (int i = 0; static_cast<int>(map.MemberCount()) < labels; ++i) {
    SetString(map, absl::StrCat("feature.node.kubernetes.io/cpu-cpuid.FEATURE", i).c_str(), "true",
              allocator);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int objects = 10000;
  std::string fixtures = "tools/bench/fixtures";
  int node_labels = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--objects" && i + 1 < argc && absl::SimpleAtoi(argv[i + 1], &objects) &&
        objects > 0) {
      ++i;
    } else if (arg == "--fixtures" && i + 1 < argc) {
      fixtures = argv[++i];
    } else if (arg == "--node-labels" && i + 1 < argc &&
               absl::SimpleAtoi(argv[i + 1], &node_labels) && node_labels >= 0) {
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: cache_memory_bench [--objects N>0] [--fixtures DIR] "
                   "[--node-labels L>=0]\n");
      return 2;
    }
  }
  rapidjson::Document node;
  rapidjson::Document pod;
  for (auto [doc, file] : {std::pair{&node, "node.json"}, std::pair{&pod, "slurmd-pod.json"}}) {
    absl::StatusOr<std::string> text = ReadFile(absl::StrCat(fixtures, "/", file));
    if (!text.ok() || doc->Parse(text->c_str()).HasParseError() || !doc->IsObject()) {
      std::fprintf(stderr,
                   "%s/%s: not a JSON object (run from the repository's top, or give "
                   "--fixtures)\n",
                   fixtures.c_str(), file);
      return 1;
    }
  }
  // The floor: the informer's own entry (metadata, key, indexes) with a view of nothing.
  const ParseView nothing = [](absl::string_view) { return std::any(true); };
  const std::vector<Case> cases = {
      {"Node, entry only", "(floor)", false, nothing},
      {"Node, JSON only", "(no view)", false, nullptr},
      {"Node, NodeView + JSON", "(JSON kept)", false, api::NodeViewForCache, true},
      {"Node, NodeView with model", "(all annotations and conditions)", false,
       api::NodeViewForCache, false, false},
      {"Node, model view, all labels", "(before NodeLabelKeys)", false,
       api::NodeViewForCacheKeeping(api::NodeModel::kRead, api::ViewKeeps::Only({}, {})), false,
       false},
      {"Node, render view, its labels", "cluster-controller", false,
       cluster::NodeViewForRenderKeeping(
           std::make_shared<api::NodeLabelKeys>(api::RenderLabelKeys(v1::SlurmCluster(), {}))),
       false, false},
      {"Node, model view, its labels", "nodeset-controller, one selector label", false,
       api::NodeViewForCacheKeeping(
           api::NodeModel::kRead, api::ViewKeeps::Only({}, {}),
           std::make_shared<api::NodeLabelKeys>(api::LabelKeys{api::kSlurmNodeLabel, "pool"})),
       false, false},
      {"Node, drain view", "(all annotations and conditions)", false,
       api::NodeViewForCacheKeeping(api::NodeModel::kSkip, {}), false, false},
      {"Node, drain view, its conditions", "slurm-syncer", false,
       api::NodeViewForCacheKeeping(
           api::NodeModel::kSkip,
           api::ViewKeeps::Only({api::kDrainAnnotation}, {api::kSyncerNodeConditions.begin(),
                                                          api::kSyncerNodeConditions.end()})),
       false, false},
      {"slurmd pod, entry only", "(floor)", true, nothing},
      {"slurmd pod, JSON only", "(no view)", true, nullptr},
      {"slurmd pod, PodView + JSON", "(JSON kept)", true, api::PodViewForCache, true},
      {"slurmd pod, PodView", "(all annotations and conditions)", true, api::PodViewForCache},
      {"slurmd pod, PodView, its conditions", "slurm-syncer", true,
       api::PodViewForCacheKeeping(api::ViewKeeps::Only(
           {api::kSlurmStateAnnotation, api::kSlurmReasonAnnotation},
           {api::kSyncerPodConditions.begin(), api::kSyncerPodConditions.end()}))},
      {"slurmd pod, PodView, no condition", "cluster-controller", true,
       api::PodViewForCacheKeeping(api::ViewKeeps::Only({api::kSlurmAttributesAnnotation}, {}))},
      {"slurmd pod, PodView, one condition", "nodeset-controller", true,
       api::PodViewForCacheKeeping(api::ViewKeeps::Only({}, {api::kSlurmNodeInUseCondition}))},
      {"slurmd pod, PodView, bare", "pod-scheduler", true,
       api::PodViewForCacheKeeping(api::ViewKeeps::Only({}, {}))},
  };
  if (!node.HasMember("metadata") || !node["metadata"].IsObject()) {
    std::fprintf(stderr, "%s/node.json: no metadata\n", fixtures.c_str());
    return 1;
  }
  PadLabels(node, node_labels);
  std::printf(
      "%d objects per case, a Node with %u labels; heap in use per cached object (mallinfo2, "
      "after trim)\n",
      objects, node["metadata"]["labels"].MemberCount());
  for (const Case& c : cases) {
    const double per_object = MeasureCase(c, c.pod ? pod : node, objects);
    if (per_object < 0) return 1;
    std::printf("  %-36s %7.0f B/object  %6.1f MB per %d   (%s)\n", c.what, per_object,
                per_object * objects / 1e6, objects, c.who);
  }
  return 0;
}
