// Renders all config files for 1,000 and 10,000 nodes across 50 NodeSets with mixed labels
// and prints time per render, output size and peak RSS. Target: 10,000 nodes in <= 20 ms on
// one core. Usage: render_bench [OUTPUT_DIR]; with OUTPUT_DIR, each run's files, hash and
// warnings are written to OUTPUT_DIR/<nodes>/, so that `cmp` can show an optimisation kept
// the output bytes.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/heap_tuning.h"
#include "render.h"

namespace {

constexpr int kNodeSets = 50;

tidepool::v1::RenderRequest MakeRequest(int nodes) {
  tidepool::v1::RenderRequest request;
  auto* cluster = request.mutable_cluster();
  cluster->set_api_version("tidepool.dev/v1alpha1");
  cluster->mutable_metadata()->set_name("bench");
  cluster->mutable_metadata()->set_namespace_("hpc");
  cluster->mutable_spec()->set_cluster_name("bench");
  cluster->mutable_spec()->mutable_topology()->set_plugin("tree");
  auto* partition = cluster->mutable_spec()->add_partitions();
  partition->set_name("gpu");
  partition->set_default_(true);
  for (int s = 0; s < kNodeSets; ++s) {
    auto* node_set = request.add_node_sets();
    node_set->mutable_metadata()->set_name(absl::StrCat("set", s));
    node_set->mutable_spec()->mutable_cluster_ref()->set_name("bench");
    node_set->mutable_spec()->mutable_slurm()->add_features(s % 2 == 0 ? "h100" : "h200");
    (*node_set->mutable_spec()
          ->mutable_slurm()
          ->mutable_feature_labels())["topology.kubernetes.io/zone"] = "zone-";
    partition->add_node_sets(absl::StrCat("set", s));
  }
  const char* products[] = {"NVIDIA-H100-80GB-HBM3", "NVIDIA-H200", "NVIDIA-B200"};
  for (int i = 0; i < nodes; ++i) {
    const int s = i % kNodeSets;
    auto* member = request.add_members();
    member->set_node_set(absl::StrCat("set", s));
    member->set_slurm_node_name(absl::StrFormat("set%d-%04d", s, i / kNodeSets + 1));
    auto* node = member->mutable_node();
    node->mutable_metadata()->set_name(absl::StrCat("k8s-node-", i));
    auto& labels = *node->mutable_metadata()->mutable_labels();
    labels["nvidia.com/gpu.product"] = products[s % 3];
    labels["topology.kubernetes.io/zone"] = absl::StrCat("z", i % 3);
    labels["ib.coreweave.cloud/fabric"] = absl::StrCat("fab", i / 2000);
    labels["ib.coreweave.cloud/superpod"] = absl::StrCat("sp", i / 500);
    labels["ib.coreweave.cloud/leafgroup"] = absl::StrCat("lg", i / 32);
    auto& allocatable = *node->mutable_allocatable();
    allocatable["cpu"] = "128";
    allocatable["memory"] = "2113929216Ki";
    allocatable["nvidia.com/gpu"] = "8";
  }
  return request;
}

void WriteFile(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(1);
  }
}

void WriteOutput(const std::string& output_dir, int nodes,
                 const tidepool::v1::RenderResponse& response) {
  const std::filesystem::path dir = std::filesystem::path(output_dir) / absl::StrCat(nodes);
  std::filesystem::create_directories(dir);
  for (const auto& file : response.files()) WriteFile(dir / file.name(), file.content());
  WriteFile(dir / "config_hash", response.config_hash());
  std::string warnings;
  for (const std::string& warning : response.warnings()) absl::StrAppend(&warnings, warning, "\n");
  WriteFile(dir / "warnings", warnings);
}

void Run(int nodes, const std::string& output_dir) {
  const tidepool::v1::RenderRequest request = MakeRequest(nodes);
  std::vector<double> millis;
  size_t bytes = 0;
  size_t lines = 0;
  for (int round = 0; round < 30; ++round) {
    const auto start = std::chrono::steady_clock::now();
    auto response = tidepool::renderer::Render(request);
    const auto end = std::chrono::steady_clock::now();
    if (!response.ok()) {
      std::fprintf(stderr, "render failed: %s\n", std::string(response.status().message()).c_str());
      std::exit(1);
    }
    millis.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    if (round == 0 && !output_dir.empty()) WriteOutput(output_dir, nodes, *response);
    bytes = 0;
    lines = 0;
    for (const auto& file : response->files()) {
      bytes += file.content().size();
      lines += std::count(file.content().begin(), file.content().end(), '\n');
    }
  }
  std::sort(millis.begin(), millis.end());
  std::printf(
      "render %6d nodes, %d NodeSets: median %7.2f ms  p90 %7.2f ms  min %7.2f ms  "
      "output %zu bytes in %zu lines\n",
      nodes, kNodeSets, millis[millis.size() / 2], millis[millis.size() * 9 / 10], millis.front(),
      bytes, lines);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string output_dir = argc > 1 ? argv[1] : "";
  // As the config-renderer service runs (services/config-renderer/main.cc).
  if (absl::Status heap = tidepool::common::RetainFreedHeap(tidepool::renderer::kRetainedHeapBytes);
      !heap.ok()) {
    std::fprintf(stderr, "render_bench: %s\n", std::string(heap.message()).c_str());
    return 1;
  }
  Run(1000, output_dir);
  Run(10000, output_dir);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("peak RSS %.1f MB\n", static_cast<double>(usage.ru_maxrss) / 1024.0);
  return 0;
}
