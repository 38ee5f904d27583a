#include "offline.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "k8s/yaml_documents.h"
#include "render.h"
#include "slurm/hostlist/hostlist.h"
#include "tidepool/membership.h"
#include "tidepool/resources.h"

ABSL_FLAG(std::string, output_dir, "",
          "render: directory to write slurm.conf, gres.conf, topology.conf and cgroup.conf "
          "into; empty prints them to stdout");
ABSL_FLAG(std::string, cluster, "",
          "render: the SlurmCluster to render when the input has several");
ABSL_FLAG(std::vector<std::string>, controller_hosts, {},
          "render: SlurmctldHost names (default <cluster>-controller-N)");
ABSL_FLAG(std::string, cgroup_plugin, "", "render: CgroupPlugin (default autodetect)");

namespace tidepool::renderer {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

constexpr char kUsage[] =
    "usage: config-renderer render [--output_dir=DIR] [--cluster=NAME] FILE...\n"
    "       config-renderer hostlist expand EXPRESSION...\n"
    "       config-renderer hostlist compress [NAME...]   (names from stdin when none)\n";

struct Objects {
  std::vector<tidepool::v1::SlurmCluster> clusters;
  std::vector<tidepool::v1::NodeSet> node_sets;
  std::vector<tidepool::v1::NodeInfo> nodes;
};

absl::Status Classify(const std::string& json, Objects& objects) {
  absl::StatusOr<std::string> kind = api::KindOf(json);
  if (!kind.ok()) return kind.status();
  if (*kind == "SlurmCluster") {
    auto cluster = api::ParseSlurmCluster(json);
    if (!cluster.ok()) return cluster.status();
    objects.clusters.push_back(std::move(*cluster));
  } else if (*kind == "NodeSet") {
    auto node_set = api::ParseNodeSet(json);
    if (!node_set.ok()) return node_set.status();
    objects.node_sets.push_back(std::move(*node_set));
  } else if (*kind == "Node") {
    auto node = api::ParseNode(json);
    if (!node.ok()) return node.status();
    objects.nodes.push_back(std::move(*node));
  }
  return absl::OkStatus();  // other kinds in the same files are not the renderer's concern
}

absl::StatusOr<tidepool::v1::SlurmCluster> PickCluster(const Objects& objects,
                                                       const std::string& name) {
  std::vector<std::string> names;
  for (const auto& cluster : objects.clusters) {
    if (name.empty() ? objects.clusters.size() == 1 : cluster.metadata().name() == name) {
      return cluster;
    }
    names.push_back(cluster.metadata().name());
  }
  if (objects.clusters.empty()) return absl::InvalidArgumentError("the input has no SlurmCluster");
  return absl::InvalidArgumentError(absl::StrCat(
      name.empty() ? "the input has several SlurmClusters (" : "no SlurmCluster named \"",
      name.empty() ? absl::StrJoin(names, ", ") : name,
      name.empty() ? "); choose one with --cluster" : "\""));
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream content;
  content << file.rdbuf();
  return content.str();
}

absl::Status WriteFiles(const tidepool::v1::RenderResponse& response, const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", error.message()));
  for (const auto& file : response.files()) {
    const std::filesystem::path path = std::filesystem::path(dir) / file.name();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << file.content();
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", path.string()));
  }
  return absl::OkStatus();
}

int Fail(const absl::Status& status) {
  std::cerr << "config-renderer: " << status.message() << "\n";
  return status.code() == absl::StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
}

int RunRender(const std::vector<std::string>& files) {
  if (files.empty()) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  std::vector<std::string> objects_json;
  for (const std::string& path : files) {
    absl::StatusOr<std::string> text = ReadFile(path);
    if (!text.ok()) return Fail(text.status());
    absl::StatusOr<std::vector<std::string>> objects = k8s::ObjectsAsJson(*text);
    if (!objects.ok()) {
      return Fail(absl::InvalidArgumentError(absl::StrCat(path, ": ", objects.status().message())));
    }
    objects_json.insert(objects_json.end(), objects->begin(), objects->end());
  }
  std::vector<std::string> warnings;
  absl::StatusOr<tidepool::v1::RenderRequest> request =
      RequestFromObjects(objects_json, absl::GetFlag(FLAGS_cluster), warnings);
  if (!request.ok()) return Fail(request.status());
  for (const std::string& host : absl::GetFlag(FLAGS_controller_hosts)) {
    request->mutable_environment()->add_controller_hosts(host);
  }
  request->mutable_environment()->set_cgroup_plugin(absl::GetFlag(FLAGS_cgroup_plugin));
  absl::StatusOr<tidepool::v1::RenderResponse> response = Render(*request);
  if (!response.ok()) return Fail(response.status());
  for (const std::string& warning : warnings) std::cerr << "warning: " << warning << "\n";
  for (const std::string& warning : response->warnings())
    std::cerr << "warning: " << warning << "\n";
  const std::string dir = absl::GetFlag(FLAGS_output_dir);
  if (dir.empty()) {
    for (const auto& file : response->files()) {
      std::cout << "# ---- " << file.name() << "\n" << file.content();
    }
  } else {
    absl::Status written = WriteFiles(*response, dir);
    if (!written.ok()) return Fail(written);
  }
  std::cerr << "config hash " << response->config_hash() << ": " << response->nodes() << " nodes, "
            << response->partitions() << " partitions\n";
  return kExitOk;
}

int RunHostlist(const std::vector<std::string>& args) {
  if (args.empty() || (args[0] != "expand" && args[0] != "compress")) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  std::vector<std::string> operands(args.begin() + 1, args.end());
  if (args[0] == "expand") {
    for (const std::string& expression : operands) {
      absl::StatusOr<std::vector<std::string>> hosts = slurm::ExpandHostlist(expression);
      if (!hosts.ok()) return Fail(hosts.status());
      for (const std::string& host : *hosts) std::cout << host << "\n";
    }
    return kExitOk;
  }
  if (operands.empty()) {
    for (std::string line; std::getline(std::cin, line);) {
      if (!line.empty()) operands.push_back(line);
    }
  }
  absl::StatusOr<std::string> compressed = slurm::CompressHostNames(operands);
  if (!compressed.ok()) return Fail(compressed.status());
  std::cout << *compressed << "\n";
  return kExitOk;
}

}  // namespace

absl::StatusOr<tidepool::v1::RenderRequest> RequestFromObjects(
    const std::vector<std::string>& json_objects, const std::string& cluster_name,
    std::vector<std::string>& warnings) {
  Objects objects;
  for (const std::string& json : json_objects) {
    absl::Status status = Classify(json, objects);
    if (!status.ok()) return status;
  }
  absl::StatusOr<tidepool::v1::SlurmCluster> cluster = PickCluster(objects, cluster_name);
  if (!cluster.ok()) return cluster.status();
  tidepool::v1::RenderRequest request;
  *request.mutable_cluster() = *cluster;
  std::vector<tidepool::v1::NodeSet> node_sets;
  for (const auto& node_set : objects.node_sets) {
    if (node_set.spec().cluster_ref().name() != cluster->metadata().name()) continue;
    node_sets.push_back(node_set);
    *request.add_node_sets() = node_set;
  }
  for (const api::PlannedMember& planned : api::PlanMembers(node_sets, objects.nodes, warnings)) {
    tidepool::v1::MemberNode* member = request.add_members();
    member->set_slurm_node_name(planned.slurm_node_name);
    member->set_node_set(planned.node_set);
    *member->mutable_node() = *planned.node;
  }
  return request;
}

std::optional<int> RunOfflineCommand(const std::vector<std::string>& args) {
  if (args.empty()) return std::nullopt;
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "render") return RunRender(rest);
  if (args[0] == "hostlist") return RunHostlist(rest);
  std::cerr << "config-renderer: unknown command \"" << args[0] << "\"\n" << kUsage;
  return kExitUsage;
}

}  // namespace tidepool::renderer
