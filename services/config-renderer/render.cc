#include "render.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "node_attributes.h"
#include "request_validation.h"
#include "slurm/conf/content_hash.h"
#include "slurm/conf/writers.h"
#include "topology.h"

namespace tidepool::renderer {
namespace {

using tidepool::v1::MemberNode;
using tidepool::v1::NodeSet;
using tidepool::v1::RenderEnvironment;
using tidepool::v1::RenderRequest;
using tidepool::v1::RenderResponse;

std::string Or(const std::string& value, absl::string_view fallback) {
  return value.empty() ? std::string(fallback) : value;
}

// Orders names by prefix, then numeric suffix, then the whole name; computed once per name.
struct NameOrder {
  absl::string_view prefix;
  uint64_t number = 0;
  absl::string_view name;
  const MemberNode* member = nullptr;

  bool operator<(const NameOrder& other) const {
    return std::tie(prefix, number, name) < std::tie(other.prefix, other.number, other.name);
  }
};

NameOrder OrderOf(const MemberNode& member) {
  const absl::string_view name = member.slurm_node_name();
  size_t digits = name.size();
  while (digits > 0 && absl::ascii_isdigit(name[digits - 1]) && name.size() - digits < 18) --digits;
  NameOrder order{.prefix = name.substr(0, digits), .name = name, .member = &member};
  for (char c : name.substr(digits)) order.number = order.number * 10 + (c - '0');
  return order;
}

// Members in a fixed order, so output does not depend on the request's order.
std::vector<const MemberNode*> SortedMembers(const RenderRequest& request) {
  std::vector<NameOrder> orders;
  orders.reserve(request.members_size());
  for (const MemberNode& member : request.members()) orders.push_back(OrderOf(member));
  std::sort(orders.begin(), orders.end());
  std::vector<const MemberNode*> members;
  members.reserve(orders.size());
  for (const NameOrder& order : orders) members.push_back(order.member);
  return members;
}

void FillControlPlane(const RenderRequest& request, slurm::SlurmConf& conf) {
  const auto& cluster = request.cluster();
  const auto& spec = cluster.spec();
  const RenderEnvironment& env = request.environment();
  conf.cluster_name = spec.cluster_name();
  if (env.controller_hosts().empty()) {
    const int replicas = spec.controller().has_replicas() ? spec.controller().replicas() : 1;
    for (int i = 0; i < replicas; ++i) {
      conf.controllers.push_back({absl::StrCat(cluster.metadata().name(), "-controller-", i), ""});
    }
  } else {
    for (const std::string& host : env.controller_hosts()) conf.controllers.push_back({host, ""});
  }
  conf.slurm_user = Or(env.slurm_user(), "slurm");
  conf.jwt_key_path = Or(env.jwt_key_path(), "/etc/slurm/jwt_hs256.key");
  conf.state_save_location = Or(env.state_save_location(), "/var/spool/slurmctld");
  if (spec.accounting().enabled()) {
    conf.accounting.storage_type = "accounting_storage/slurmdbd";
    conf.accounting.host =
        Or(env.accounting_host(), absl::StrCat(cluster.metadata().name(), "-accounting"));
  }
  if (!spec.prolog().config_map().empty()) {
    conf.prolog = absl::StrCat(Or(env.prolog_dir(), "/etc/slurm/prolog.d"), "/*");
  }
  if (!spec.epilog().config_map().empty()) {
    conf.epilog = absl::StrCat(Or(env.epilog_dir(), "/etc/slurm/epilog.d"), "/*");
  }
  conf.user_settings.insert(spec.slurm_config().begin(), spec.slurm_config().end());
  conf.extra_config = spec.extra_config();
}

void FillPartitions(const RenderRequest& request, const std::vector<const MemberNode*>& members,
                    slurm::SlurmConf& conf) {
  const auto& partitions = request.cluster().spec().partitions();
  if (partitions.empty()) {
    slurm::PartitionConfig all{.name = "all", .is_default = true, .max_time = "INFINITE"};
    for (const MemberNode* member : members) all.nodes.push_back(member->slurm_node_name());
    conf.partitions.push_back(std::move(all));
    return;
  }
  // NodeSet -> the partitions that list it, so members are visited once.
  absl::flat_hash_map<absl::string_view, std::vector<size_t>> partitions_of;
  for (const auto& spec : partitions) {
    for (const std::string& node_set : spec.node_sets()) {
      partitions_of[node_set].push_back(conf.partitions.size());
    }
    conf.partitions.push_back({.name = spec.name(),
                               .is_default = spec.default_(),
                               .max_time = spec.max_time(),
                               .extra = {spec.config().begin(), spec.config().end()}});
  }
  const std::vector<size_t>* targets = nullptr;
  absl::string_view current_node_set;
  for (const MemberNode* member : members) {
    if (targets == nullptr || member->node_set() != current_node_set) {
      current_node_set = member->node_set();
      auto it = partitions_of.find(current_node_set);
      static const std::vector<size_t> kNone;
      targets = it == partitions_of.end() ? &kNone : &it->second;
    }
    for (size_t index : *targets) conf.partitions[index].nodes.push_back(member->slurm_node_name());
  }
}

// Device files only for GPUs.
std::string DevicePrefix(const RenderRequest& request, const std::string& gres_name) {
  if (gres_name != "gpu") return "";
  return Or(request.environment().gpu_device_prefix(), "/dev/nvidia");
}

struct DerivedNodes {
  std::vector<slurm::NodeConfig> nodes;
  slurm::GresConf gres;
  std::set<std::string> gres_types;
};

absl::StatusOr<DerivedNodes> DeriveNodes(const RenderRequest& request,
                                         const std::vector<const MemberNode*>& members,
                                         std::vector<std::string>& warnings) {
  absl::flat_hash_map<std::string, NodeSetRules> node_sets;
  for (const NodeSet& node_set : request.node_sets()) {
    absl::StatusOr<NodeSetRules> rules = PrepareNodeSetRules(node_set);
    if (!rules.ok()) return rules.status();
    node_sets.emplace(node_set.metadata().name(), std::move(*rules));
  }
  DerivedNodes derived;
  derived.gres.auto_detect = request.cluster().spec().gres().auto_detect();
  derived.nodes.reserve(members.size());
  derived.gres.nodes.reserve(members.size());
  // Members come sorted by name, so one NodeSet's members mostly follow each other.
  const NodeSetRules* rules = nullptr;
  for (const MemberNode* member : members) {
    if (rules == nullptr || rules->node_set->metadata().name() != member->node_set()) {
      rules = &node_sets.at(member->node_set());
    }
    absl::StatusOr<DerivedNode> node = DeriveNode(*rules, *member, warnings);
    if (!node.ok()) return node.status();
    if (node->gres.has_value()) {
      derived.gres_types.insert(node->gres->name);
      derived.gres.nodes.push_back({.node = node->config.name,
                                    .name = node->gres->name,
                                    .type = node->gres->type,
                                    .count = node->gres->count,
                                    .device_prefix = DevicePrefix(request, node->gres->name)});
    }
    derived.nodes.push_back(std::move(node->config));
  }
  return derived;
}

}  // namespace

absl::StatusOr<RenderResponse> Render(const RenderRequest& request) {
  std::vector<std::string> warnings;
  absl::Status valid = ValidateRenderRequest(request, warnings);
  if (!valid.ok()) return valid;
  const std::vector<const MemberNode*> members = SortedMembers(request);

  slurm::SlurmConf conf;
  FillControlPlane(request, conf);
  absl::StatusOr<DerivedNodes> nodes = DeriveNodes(request, members, warnings);
  if (!nodes.ok()) return nodes.status();
  conf.nodes = std::move(nodes->nodes);
  conf.gres_types.assign(nodes->gres_types.begin(), nodes->gres_types.end());
  FillPartitions(request, members, conf);
  const auto& topology_spec = request.cluster().spec().topology();
  conf.topology_plugin = *TopologyPluginName(topology_spec);
  absl::StatusOr<slurm::TopologyConf> topology = DeriveTopology(topology_spec, members, warnings);
  if (!topology.ok()) return topology.status();
  const std::string& cgroup_plugin = request.environment().cgroup_plugin();
  slurm::CgroupConf cgroup{.plugin = Or(cgroup_plugin, "autodetect")};

  absl::StatusOr<std::string> slurm_conf = slurm::WriteSlurmConf(conf);
  if (!slurm_conf.ok()) return slurm_conf.status();
  absl::StatusOr<std::string> gres_conf = slurm::WriteGresConf(nodes->gres);
  if (!gres_conf.ok()) return gres_conf.status();
  absl::StatusOr<std::string> topology_conf = slurm::WriteTopologyConf(*topology);
  if (!topology_conf.ok()) return topology_conf.status();

  RenderResponse response;
  const std::vector<std::pair<std::string, std::string>> files = {
      {"slurm.conf", std::move(*slurm_conf)},
      {"gres.conf", std::move(*gres_conf)},
      {"topology.conf", std::move(*topology_conf)},
      {"cgroup.conf", slurm::WriteCgroupConf(cgroup)},
  };
  for (const auto& [name, content] : files) {
    auto* file = response.add_files();
    file->set_name(name);
    file->set_content(content);
  }
  response.set_config_hash(slurm::ContentHash(files));
  for (std::string& warning : warnings) response.add_warnings(std::move(warning));
  response.set_nodes(static_cast<int32_t>(conf.nodes.size()));
  response.set_partitions(static_cast<int32_t>(conf.partitions.size()));
  return response;
}

absl::StatusOr<tidepool::v1::ValidateResponse> Validate(const RenderRequest& request) {
  absl::StatusOr<RenderResponse> rendered = Render(request);
  if (!rendered.ok()) return rendered.status();
  tidepool::v1::ValidateResponse response;
  *response.mutable_warnings() = rendered->warnings();
  return response;
}

}  // namespace tidepool::renderer
