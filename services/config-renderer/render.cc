#include "render.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/node_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "hook_runners.h"
#include "node_attributes.h"
#include "request_validation.h"
#include "slurm/conf/content_hash.h"
#include "slurm/conf/writers.h"
#include "tidepool/contract.h"
#include "tidepool/naming.h"
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

// Orders names by prefix, then numeric suffix, then the whole name. Prefixes are ranked
// once per distinct prefix, so the sort compares integers and reads name text (scattered
// through the request) only when prefix and number tie, as "n01" and "n1" do.
struct NameOrder {
  uint32_t prefix_rank = 0;
  uint64_t number = 0;
  absl::string_view name;
  uint32_t request_index = 0;

  bool operator<(const NameOrder& other) const {
    return std::tie(prefix_rank, number, name) <
           std::tie(other.prefix_rank, other.number, other.name);
  }
};

// Splits a name into its prefix and its numeric suffix (at most 18 digits, so it fits).
std::pair<absl::string_view, uint64_t> PrefixAndNumber(absl::string_view name) {
  size_t digits = name.size();
  while (digits > 0 && absl::ascii_isdigit(name[digits - 1]) && name.size() - digits < 18) --digits;
  uint64_t number = 0;
  for (char c : name.substr(digits)) number = number * 10 + (c - '0');
  return {name.substr(0, digits), number};
}

// Assigns each distinct prefix an id in first-seen order and, at the end, its rank in
// text order.
class PrefixRanks {
 public:
  uint32_t Id(absl::string_view prefix) {
    auto [it, inserted] = ids_.try_emplace(prefix, static_cast<uint32_t>(prefixes_.size()));
    if (inserted) prefixes_.push_back(prefix);
    return it->second;
  }

  std::vector<uint32_t> RankById() const {
    std::vector<uint32_t> by_text(prefixes_.size());
    for (uint32_t id = 0; id < by_text.size(); ++id) by_text[id] = id;
    std::sort(by_text.begin(), by_text.end(),
              [this](uint32_t a, uint32_t b) { return prefixes_[a] < prefixes_[b]; });
    std::vector<uint32_t> rank(prefixes_.size());
    for (uint32_t position = 0; position < by_text.size(); ++position) {
      rank[by_text[position]] = position;
    }
    return rank;
  }

 private:
  absl::flat_hash_map<absl::string_view, uint32_t> ids_;
  std::vector<absl::string_view> prefixes_;
};

// Members in a fixed order (by name), so output does not depend on the request's order.
struct RenderOrder {
  std::vector<const MemberNode*> members;
  std::vector<uint32_t> position_of;  // request index -> position in `members`
};

RenderOrder SortMembers(const RenderRequest& request) {
  std::vector<NameOrder> orders;
  orders.reserve(request.members_size());
  PrefixRanks prefixes;
  for (int i = 0; i < request.members_size(); ++i) {
    const absl::string_view name = request.members(i).slurm_node_name();
    const auto [prefix, number] = PrefixAndNumber(name);
    // Holds the prefix id until all prefixes are known.
    orders.push_back({.prefix_rank = prefixes.Id(prefix),
                      .number = number,
                      .name = name,
                      .request_index = static_cast<uint32_t>(i)});
  }
  const std::vector<uint32_t> rank_by_id = prefixes.RankById();
  for (NameOrder& order : orders) order.prefix_rank = rank_by_id[order.prefix_rank];
  std::sort(orders.begin(), orders.end());
  RenderOrder result;
  result.members.reserve(orders.size());
  result.position_of.resize(orders.size());
  for (const NameOrder& order : orders) {
    result.position_of[order.request_index] = static_cast<uint32_t>(result.members.size());
    result.members.push_back(&request.members(static_cast<int>(order.request_index)));
  }
  return result;
}

// slurmd pods start with --conf-server: slurmctld must serve the configuration, also when
// the user sets SlurmctldParameters themselves (their options are kept).
void RequireConfigless(slurm::SlurmConf& conf) {
  constexpr absl::string_view kConfigless = "enable_configless";
  auto user = conf.user_settings.find("SlurmctldParameters");
  if (user == conf.user_settings.end()) {
    conf.slurmctld_parameters.emplace_back(kConfigless);
    return;
  }
  for (absl::string_view option : absl::StrSplit(user->second, ',')) {
    if (absl::StripAsciiWhitespace(option) == kConfigless) return;
  }
  user->second = user->second.empty() ? std::string(kConfigless)
                                      : absl::StrCat(user->second, ",", kConfigless);
}

void FillControlPlane(const RenderRequest& request, slurm::SlurmConf& conf) {
  const auto& cluster = request.cluster();
  const auto& spec = cluster.spec();
  const RenderEnvironment& env = request.environment();
  conf.cluster_name = spec.cluster_name();
  if (env.controller_hosts().empty()) {
    const int replicas = spec.controller().has_replicas() ? spec.controller().replicas() : 1;
    // The slurmctld StatefulSet's pods; their address through its headless Service, which
    // the pods of the cluster's namespace resolve by their DNS search path.
    const std::string& name = cluster.metadata().name();
    for (int i = 0; i < replicas; ++i) {
      conf.controllers.push_back(
          {api::ControllerPodName(name, i),
           absl::StrCat(api::ControllerPodName(name, i), ".", api::ControllerName(name))});
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
  // The runners (HookRunners) run the scripts in name order, which a glob would not.
  if (!spec.prolog().config_map().empty()) {
    conf.prolog = absl::StrCat(api::kHookRunnerDir, "/", api::kPrologRunnerFile);
  }
  if (!spec.epilog().config_map().empty()) {
    conf.epilog = absl::StrCat(api::kHookRunnerDir, "/", api::kEpilogRunnerFile);
  }
  conf.user_settings.insert(spec.slurm_config().begin(), spec.slurm_config().end());
  conf.extra_config = spec.extra_config();
  if (env.configless()) RequireConfigless(conf);
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

// What deriving the members produced, filled in request order and read in rendering
// order: each member's results sit at its position in the rendering order.
class PositionedResults {
 public:
  explicit PositionedResults(size_t members) : nodes_(members), gres_(members) {}

  void Set(uint32_t position, slurm::NodeConfig node, std::optional<slurm::NodeGres> gres) {
    nodes_[position] = std::move(node);
    gres_[position] = std::move(gres);
  }
  void Warn(uint32_t position, std::vector<std::string>& warnings) {
    for (std::string& warning : warnings) warnings_.emplace_back(position, std::move(warning));
    warnings.clear();
  }
  // Keeps the error of the member that comes first in rendering order, the one a pass in
  // that order would have stopped at.
  void Fail(uint32_t position, absl::Status error) {
    if (position >= error_position_) return;
    error_position_ = position;
    error_ = std::move(error);
  }

  const absl::Status& error() const { return error_; }
  std::vector<slurm::NodeConfig> TakeNodes() { return std::move(nodes_); }
  std::vector<slurm::NodeGres> TakeGres();
  void AppendWarnings(std::vector<std::string>& warnings);

 private:
  std::vector<slurm::NodeConfig> nodes_;
  std::vector<std::optional<slurm::NodeGres>> gres_;
  std::vector<std::pair<uint32_t, std::string>> warnings_;
  absl::Status error_;
  uint32_t error_position_ = UINT32_MAX;
};

std::vector<slurm::NodeGres> PositionedResults::TakeGres() {
  std::vector<slurm::NodeGres> gres;
  gres.reserve(gres_.size());
  for (std::optional<slurm::NodeGres>& node : gres_) {
    if (node.has_value()) gres.push_back(std::move(*node));
  }
  return gres;
}

void PositionedResults::AppendWarnings(std::vector<std::string>& warnings) {
  // Stable: one member's warnings keep their order.
  std::stable_sort(warnings_.begin(), warnings_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [position, warning] : warnings_) warnings.push_back(std::move(warning));
}

// Rules for members whose pod was made with other attributes than the NodeSet's current
// ones (MemberNode.slurm), made once per distinct set of attributes.
class PinnedAttributes {
 public:
  absl::StatusOr<const NodeSetRules*> RulesFor(const NodeSetRules& current,
                                               const tidepool::v1::NodeSetSlurm& slurm) {
    const std::string key =
        absl::StrCat(current.node_set->metadata().name(), "\n", slurm.ShortDebugString());
    auto [it, added] = rules_.try_emplace(key);
    Entry& entry = it->second;
    if (!added) return &entry.rules;
    entry.node_set = *current.node_set;
    *entry.node_set.mutable_spec()->mutable_slurm() = slurm;
    absl::StatusOr<NodeSetRules> rules = PrepareNodeSetRules(entry.node_set);
    if (!rules.ok()) {
      rules_.erase(it);
      return rules.status();
    }
    entry.rules = *std::move(rules);
    return &entry.rules;
  }

 private:
  struct Entry {
    tidepool::v1::NodeSet node_set;  // NodeSetRules points here
    NodeSetRules rules;
  };
  // node_hash_map: entries stay where they are, so the rules' pointers hold.
  absl::node_hash_map<std::string, Entry> rules_;
};

// Members are visited in request order, which is how their protos lie in memory: in
// rendering order each member's labels and resources are a fresh cache miss, which at
// 10,000 Nodes costs more than deriving them. Results, warnings and the error reported are
// those of rendering order all the same. Each member is also handed to `topology` while its
// labels are still in cache.
absl::StatusOr<DerivedNodes> DeriveNodes(const RenderRequest& request, const RenderOrder& order,
                                         TopologyCollector& topology,
                                         std::vector<std::string>& warnings) {
  absl::flat_hash_map<std::string, NodeSetRules> node_sets;
  for (const NodeSet& node_set : request.node_sets()) {
    absl::StatusOr<NodeSetRules> rules = PrepareNodeSetRules(node_set);
    if (!rules.ok()) return rules.status();
    node_sets.emplace(node_set.metadata().name(), std::move(*rules));
  }
  PinnedAttributes pinned;
  DerivedNodes derived;
  PositionedResults results(order.members.size());
  std::vector<std::string> member_warnings;
  const NodeSetRules* rules = nullptr;
  for (int i = 0; i < request.members_size(); ++i) {
    const MemberNode& member = request.members(i);
    const uint32_t position = order.position_of[i];
    const NodeSetRules* member_rules = nullptr;
    if (member.has_slurm()) {
      absl::StatusOr<const NodeSetRules*> own =
          pinned.RulesFor(node_sets.at(member.node_set()), member.slurm());
      if (!own.ok()) {
        results.Fail(position, own.status());
        continue;
      }
      member_rules = *own;
    } else {
      if (rules == nullptr || rules->node_set->metadata().name() != member.node_set()) {
        rules = &node_sets.at(member.node_set());
      }
      member_rules = rules;
    }
    absl::StatusOr<DerivedNode> node = DeriveNode(*member_rules, member, member_warnings);
    if (!node.ok()) {
      results.Fail(position, node.status());
      continue;
    }
    results.Warn(position, member_warnings);
    topology.Add(member, position);
    std::optional<slurm::NodeGres> gres;
    if (node->gres.has_value()) {
      derived.gres_types.insert(node->gres->name);
      gres = slurm::NodeGres{.node = node->config.name,
                             .name = node->gres->name,
                             .type = node->gres->type,
                             .count = node->gres->count,
                             .device_prefix = DevicePrefix(request, node->gres->name)};
    }
    results.Set(position, std::move(node->config), std::move(gres));
  }
  if (!results.error().ok()) return results.error();
  derived.nodes = results.TakeNodes();
  derived.gres.auto_detect = request.cluster().spec().gres().auto_detect();
  derived.gres.nodes = results.TakeGres();
  results.AppendWarnings(warnings);
  return derived;
}

// The prolog and epilog runners slurm.conf names (hook_runners.h), when the cluster has
// scripts.
void AddHookRunners(const RenderRequest& request,
                    std::vector<std::pair<std::string, std::string>>& files) {
  const auto& spec = request.cluster().spec();
  const auto& env = request.environment();
  if (!spec.prolog().config_map().empty()) {
    files.emplace_back(api::kPrologRunnerFile,
                       HookRunnerScript("prolog", Or(env.prolog_dir(), "/etc/slurm/prolog.d")));
  }
  if (!spec.epilog().config_map().empty()) {
    files.emplace_back(api::kEpilogRunnerFile,
                       HookRunnerScript("epilog", Or(env.epilog_dir(), "/etc/slurm/epilog.d")));
  }
}

// What slurmctld will list for each node once it runs on these files.
void AddLoadedNodes(const slurm::SlurmConf& conf, RenderResponse& response) {
  absl::flat_hash_map<absl::string_view, std::vector<std::string>> partitions_of;
  for (const slurm::PartitionConfig& partition : conf.partitions) {
    for (const std::string& node : partition.nodes) partitions_of[node].push_back(partition.name);
  }
  response.mutable_loaded_nodes()->Reserve(static_cast<int>(conf.nodes.size()));
  for (const slurm::NodeConfig& node : conf.nodes) {
    tidepool::v1::LoadedNode* loaded = response.add_loaded_nodes();
    loaded->set_name(node.name);
    loaded->set_cpus(node.cpus);
    loaded->set_real_memory_mib(node.real_memory_mib);
    auto it = partitions_of.find(node.name);
    if (it == partitions_of.end()) continue;
    std::sort(it->second.begin(), it->second.end());
    for (const std::string& partition : it->second) loaded->add_partitions(partition);
  }
}

}  // namespace

absl::StatusOr<RenderResponse> Render(const RenderRequest& request) {
  std::vector<std::string> warnings;
  absl::Status valid = ValidateRenderRequest(request, warnings);
  if (!valid.ok()) return valid;
  const RenderOrder order = SortMembers(request);
  const std::vector<const MemberNode*>& members = order.members;

  slurm::SlurmConf conf;
  FillControlPlane(request, conf);
  const auto& topology_spec = request.cluster().spec().topology();
  TopologyCollector topology_collector(topology_spec, members.size());
  absl::StatusOr<DerivedNodes> nodes = DeriveNodes(request, order, topology_collector, warnings);
  if (!nodes.ok()) return nodes.status();
  conf.nodes = std::move(nodes->nodes);
  conf.gres_types.assign(nodes->gres_types.begin(), nodes->gres_types.end());
  FillPartitions(request, members, conf);
  conf.topology_plugin = *TopologyPluginName(topology_spec);
  absl::StatusOr<slurm::TopologyConf> topology = topology_collector.Finish(warnings);
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
  std::vector<std::pair<std::string, std::string>> files = {
      {"slurm.conf", std::move(*slurm_conf)},
      {"gres.conf", std::move(*gres_conf)},
      {"topology.conf", std::move(*topology_conf)},
      {"cgroup.conf", slurm::WriteCgroupConf(cgroup)},
  };
  AddHookRunners(request, files);
  for (const auto& [name, content] : files) {
    auto* file = response.add_files();
    file->set_name(name);
    file->set_content(content);
  }
  response.set_config_hash(slurm::ContentHash(files));
  for (std::string& warning : warnings) response.add_warnings(std::move(warning));
  response.set_nodes(static_cast<int32_t>(conf.nodes.size()));
  response.set_partitions(static_cast<int32_t>(conf.partitions.size()));
  AddLoadedNodes(conf, response);
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
