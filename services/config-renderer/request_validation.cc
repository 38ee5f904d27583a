#include "request_validation.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/one_of.h"
#include "slurm/conf/time_limit.h"
#include "slurm/conf/user_settings.h"
#include "tidepool/gres.h"
#include "topology.h"

namespace tidepool::renderer {
namespace {

using tidepool::v1::NodeSet;
using tidepool::v1::RenderRequest;
using tidepool::v1::SlurmClusterSpec;

// Matched in one pass, never by a regex engine: these are user input of any length.

// A lower-case DNS label of at most 42 characters: [a-z]([a-z0-9-]{0,40}[a-z0-9])?
bool IsNamePrefix(absl::string_view text) {
  constexpr size_t kLongest = 42;
  if (text.empty() || text.size() > kLongest || !absl::ascii_islower(text.front()) ||
      text.back() == '-') {
    return false;
  }
  return std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '-';
  });
}

// [A-Za-z0-9_.-]+
bool IsFeature(absl::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

// Slurm names of clusters, partitions and nodes: a letter, then letters, digits, '_' or '-'.
bool IsSlurmName(const std::string& text, size_t max_length) {
  if (text.empty() || text.size() > max_length || !absl::ascii_isalpha(text[0])) return false;
  for (char c : text) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

absl::Status Field(absl::string_view object, absl::string_view field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(object, ": ", field, ": ", why));
}

absl::Status ValidateClusterSpec(absl::string_view object, const SlurmClusterSpec& spec) {
  if (spec.cluster_name().empty()) return Field(object, "spec.clusterName", "is required");
  if (!IsSlurmName(spec.cluster_name(), 40) ||
      spec.cluster_name() != absl::AsciiStrToLower(spec.cluster_name())) {
    return Field(object, "spec.clusterName",
                 absl::StrCat("\"", spec.cluster_name(),
                              "\" must be lower case, start with a letter, use only a-z 0-9 _ - "
                              "and be at most 40 characters"));
  }
  if (spec.controller().has_replicas() &&
      (spec.controller().replicas() < 1 || spec.controller().replicas() > 2)) {
    return Field(object, "spec.controller.replicas",
                 absl::StrCat(spec.controller().replicas(), " is not 1 or 2"));
  }
  if (absl::Status s = common::CheckOneOf("", spec.gres().auto_detect(), {"", "nvidia", "nvml"});
      !s.ok()) {
    return Field(object, "spec.gres.autoDetect", s.message());
  }
  absl::StatusOr<std::string> topology = TopologyPluginName(spec.topology());
  if (!topology.ok())
    return absl::InvalidArgumentError(absl::StrCat(object, ": ", topology.status().message()));
  std::map<std::string, std::string> settings(spec.slurm_config().begin(),
                                              spec.slurm_config().end());
  absl::Status status = slurm::ValidateUserSettings(settings);
  if (status.ok()) status = slurm::ValidateExtraConfig(spec.extra_config());
  if (!status.ok())
    return absl::InvalidArgumentError(absl::StrCat(object, ": spec.", status.message()));
  return absl::OkStatus();
}

absl::Status ValidatePartitions(absl::string_view object, const SlurmClusterSpec& spec,
                                const absl::flat_hash_set<std::string>& node_sets,
                                std::vector<std::string>& warnings) {
  absl::flat_hash_set<std::string> names;
  int defaults = 0;
  for (int i = 0; i < spec.partitions_size(); ++i) {
    const auto& partition = spec.partitions(i);
    const std::string field = absl::StrCat("spec.partitions[", i, "]");
    if (!IsSlurmName(partition.name(), 64)) {
      return Field(object, field + ".name",
                   absl::StrCat("\"", partition.name(), "\" is not a Slurm partition name"));
    }
    if (!names.insert(partition.name()).second) {
      return Field(object, field + ".name",
                   absl::StrCat("\"", partition.name(), "\" is listed twice"));
    }
    if (!partition.max_time().empty()) {
      absl::StatusOr<int64_t> max_time = slurm::ParseTimeLimit(partition.max_time());
      if (!max_time.ok()) return Field(object, field + ".maxTime", max_time.status().message());
    }
    if (partition.default_()) ++defaults;
    for (const std::string& node_set : partition.node_sets()) {
      if (!node_sets.contains(node_set)) {
        warnings.push_back(absl::StrCat("partition ", partition.name(), " names NodeSet ", node_set,
                                        ", which does not exist (yet)"));
      }
    }
    std::map<std::string, std::string> config(partition.config().begin(), partition.config().end());
    absl::Status status = slurm::ValidateLineSettings("PartitionName", config);
    if (!status.ok()) return Field(object, field + ".config", status.message());
  }
  if (defaults > 1) return Field(object, "spec.partitions", "more than one partition is default");
  return absl::OkStatus();
}

// A NodeSet's spec.slurm, or a member's attributes from its pod (`field` names which).
absl::Status ValidateSlurmAttributes(const tidepool::v1::NodeSetSlurm& slurm,
                                     const std::string& object, absl::string_view field) {
  const auto at = [&](absl::string_view name) { return absl::StrCat(field, ".", name); };
  if (!slurm.gres().empty()) {
    absl::StatusOr<api::GresSpec> gres = api::ParseGresSpec(slurm.gres());
    if (!gres.ok()) return Field(object, at("gres"), gres.status().message());
  }
  if (slurm.cpus() < 0) return Field(object, at("cpus"), "must not be negative");
  if (slurm.real_memory_mib() < 0)
    return Field(object, at("realMemoryMiB"), "must not be negative");
  if (slurm.reserved_memory_mib() < 0)
    return Field(object, at("reservedMemoryMiB"), "must not be negative");
  if (slurm.weight() < 0) return Field(object, at("weight"), "must not be negative");
  for (int i = 0; i < slurm.features_size(); ++i) {
    if (!IsFeature(slurm.features(i))) {
      return Field(object, absl::StrCat(field, ".features[", i, "]"),
                   absl::StrCat("\"", slurm.features(i), "\" may use only letters, digits, _ . -"));
    }
  }
  std::map<std::string, std::string> extra(slurm.extra_node_config().begin(),
                                           slurm.extra_node_config().end());
  absl::Status status = slurm::ValidateLineSettings("NodeName", extra);
  if (!status.ok()) return Field(object, at("extraNodeConfig"), status.message());
  return absl::OkStatus();
}

absl::Status ValidateNodeSet(const NodeSet& node_set, const std::string& cluster) {
  const std::string object =
      absl::StrCat("NodeSet ", node_set.metadata().namespace_(), "/", node_set.metadata().name());
  const auto& spec = node_set.spec();
  if (spec.cluster_ref().name() != cluster) {
    return Field(object, "spec.clusterRef.name",
                 absl::StrCat("\"", spec.cluster_ref().name(), "\" is not this cluster (\"",
                              cluster, "\")"));
  }
  if (!spec.name_prefix().empty() && !IsNamePrefix(spec.name_prefix())) {
    return Field(object, "spec.namePrefix",
                 absl::StrCat("\"", spec.name_prefix(),
                              "\" is not a lower-case DNS label of at most 42 characters"));
  }
  return ValidateSlurmAttributes(spec.slurm(), object, "spec.slurm");
}

absl::Status ValidateMembers(const RenderRequest& request,
                             const absl::flat_hash_set<std::string>& node_sets) {
  // Views into the request: no copies of 10,000 names.
  absl::flat_hash_set<absl::string_view> slurm_names;
  absl::flat_hash_set<absl::string_view> kubernetes_nodes;
  slurm_names.reserve(request.members_size());
  kubernetes_nodes.reserve(request.members_size());
  for (int i = 0; i < request.members_size(); ++i) {
    const auto& member = request.members(i);
    // Named only on failure: formatting it for each of 10,000 valid members costs time.
    const auto object = [i] { return absl::StrCat("members[", i, "]"); };
    if (!IsSlurmName(member.slurm_node_name(), 64)) {
      return Field(object(), "slurmNodeName",
                   absl::StrCat("\"", member.slurm_node_name(), "\" is not a Slurm node name"));
    }
    if (!slurm_names.insert(member.slurm_node_name()).second) {
      return Field(object(), "slurmNodeName",
                   absl::StrCat("\"", member.slurm_node_name(), "\" is used twice"));
    }
    if (!node_sets.contains(member.node_set())) {
      return Field(object(), "nodeSet",
                   absl::StrCat("\"", member.node_set(), "\" is not in the request"));
    }
    const std::string& node = member.node().metadata().name();
    if (node.empty()) return Field(object(), "node.metadata.name", "is required");
    if (!kubernetes_nodes.insert(node).second) {
      return Field(
          object(), "node.metadata.name",
          absl::StrCat("Node ", node, " is a member twice; a Node belongs to at most one NodeSet"));
    }
    if (member.has_slurm()) {
      absl::Status status = ValidateSlurmAttributes(
          member.slurm(), absl::StrCat(object(), " (", member.slurm_node_name(), ")"), "slurm");
      if (!status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateRenderRequest(const RenderRequest& request,
                                   std::vector<std::string>& warnings) {
  const auto& cluster = request.cluster();
  const std::string object = absl::StrCat("SlurmCluster ", cluster.metadata().namespace_(), "/",
                                          cluster.metadata().name());
  if (cluster.metadata().name().empty()) return Field(object, "metadata.name", "is required");
  absl::Status status = ValidateClusterSpec(object, cluster.spec());
  if (!status.ok()) return status;
  absl::flat_hash_set<std::string> node_sets;
  for (const NodeSet& node_set : request.node_sets()) {
    status = ValidateNodeSet(node_set, cluster.metadata().name());
    if (!status.ok()) return status;
    if (!node_sets.insert(node_set.metadata().name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("NodeSet ", node_set.metadata().name(), " appears twice in the request"));
    }
  }
  status = ValidatePartitions(object, cluster.spec(), node_sets, warnings);
  if (!status.ok()) return status;
  return ValidateMembers(request, node_sets);
}

}  // namespace tidepool::renderer
