#include "node_attributes.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "k8s/quantity.h"
#include "tidepool/quantity_memo.h"

namespace tidepool::renderer {
namespace {

constexpr int64_t kDefaultReservedMemoryMiB = 4096;
constexpr int64_t kMiB = 1024 * 1024;

absl::Status MemberError(const tidepool::v1::MemberNode& member, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("member ", member.slurm_node_name(), " (Node ",
                                                 member.node().metadata().name(), "): ", what));
}

absl::StatusOr<int> DeriveCpus(const tidepool::v1::NodeSet& node_set,
                               const tidepool::v1::MemberNode& member) {
  if (node_set.spec().slurm().cpus() > 0) return node_set.spec().slurm().cpus();
  const auto& allocatable = member.node().allocatable();
  auto it = allocatable.find("cpu");
  if (it == allocatable.end()) {
    return MemberError(member, "allocatable cpu is missing; set spec.slurm.cpus on the NodeSet");
  }
  thread_local api::QuantityMemo cpu_quantities(k8s::QuantityMilliValue);
  absl::StatusOr<int64_t> milli = cpu_quantities.Parse(it->second);
  if (!milli.ok())
    return MemberError(member, absl::StrCat("allocatable cpu: ", milli.status().message()));
  if (*milli < 1000) return MemberError(member, "allocatable cpu is less than one CPU");
  return static_cast<int>(*milli / 1000);
}

absl::StatusOr<int64_t> DeriveMemoryMiB(const tidepool::v1::NodeSet& node_set,
                                        const tidepool::v1::MemberNode& member) {
  const auto& slurm = node_set.spec().slurm();
  if (slurm.real_memory_mib() > 0) return slurm.real_memory_mib();
  const auto& allocatable = member.node().allocatable();
  auto it = allocatable.find("memory");
  if (it == allocatable.end()) {
    return MemberError(
        member, "allocatable memory is missing; set spec.slurm.realMemoryMiB on the NodeSet");
  }
  thread_local api::QuantityMemo memory_quantities(k8s::QuantityValue);
  absl::StatusOr<int64_t> bytes = memory_quantities.Parse(it->second);
  if (!bytes.ok())
    return MemberError(member, absl::StrCat("allocatable memory: ", bytes.status().message()));
  const int64_t reserved =
      slurm.has_reserved_memory_mib() ? slurm.reserved_memory_mib() : kDefaultReservedMemoryMiB;
  const int64_t memory = *bytes / kMiB - reserved;
  if (memory <= 0) {
    return MemberError(member, absl::StrCat("allocatable memory ", it->second,
                                            " leaves nothing after reservedMemoryMiB ", reserved));
  }
  return memory;
}

std::vector<std::string> DeriveFeatures(const NodeSetRules& rules,
                                        const tidepool::v1::MemberNode& member,
                                        std::vector<std::string>& warnings) {
  const auto& slurm = rules.node_set->spec().slurm();
  std::vector<std::string> features;
  features.reserve(slurm.features_size() + rules.feature_labels.size());
  features.assign(slurm.features().begin(), slurm.features().end());
  const auto& labels = member.node().metadata().labels();
  for (const auto& [label, prefix] : rules.feature_labels) {
    auto it = labels.find(label);
    if (it == labels.end()) {
      warnings.push_back(absl::StrCat("Node ", member.node().metadata().name(), " (",
                                      member.slurm_node_name(), ") has no label ", label,
                                      ": no feature with prefix \"", prefix, "\""));
      continue;
    }
    features.push_back(SlurmSafeName(absl::StrCat(prefix, it->second)));
  }
  return features;
}

}  // namespace

std::string SlurmSafeName(absl::string_view text) {
  std::string result(text);
  for (char& c : result) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '.' && c != '-') c = '_';
  }
  return result;
}

absl::StatusOr<NodeSetRules> PrepareNodeSetRules(const tidepool::v1::NodeSet& node_set) {
  NodeSetRules rules;
  rules.node_set = &node_set;
  const auto& slurm = node_set.spec().slurm();
  // Sorted label keys keep the feature order, and so the rendered bytes, deterministic.
  rules.feature_labels.assign(slurm.feature_labels().begin(), slurm.feature_labels().end());
  std::sort(rules.feature_labels.begin(), rules.feature_labels.end());
  if (!slurm.gres().empty()) {
    absl::StatusOr<api::GresSpec> explicit_gres = api::ParseGresSpec(slurm.gres());
    if (!explicit_gres.ok()) return explicit_gres.status();
    rules.explicit_gres = *explicit_gres;
  }
  return rules;
}

absl::StatusOr<DerivedNode> DeriveNode(const NodeSetRules& rules,
                                       const tidepool::v1::MemberNode& member,
                                       std::vector<std::string>& warnings) {
  const tidepool::v1::NodeSet& node_set = *rules.node_set;
  DerivedNode derived;
  derived.config.name = member.slurm_node_name();
  absl::StatusOr<int> cpus = DeriveCpus(node_set, member);
  if (!cpus.ok()) return cpus.status();
  derived.config.cpus = *cpus;
  absl::StatusOr<int64_t> memory = DeriveMemoryMiB(node_set, member);
  if (!memory.ok()) return memory.status();
  derived.config.real_memory_mib = *memory;
  const auto& slurm = node_set.spec().slurm();
  if (rules.explicit_gres.has_value()) {
    derived.gres = rules.explicit_gres;
  } else {
    absl::StatusOr<std::optional<api::GresSpec>> node_gres = api::NodeGpuGres(member.node());
    if (!node_gres.ok()) return node_gres.status();
    derived.gres = *node_gres;
  }
  if (derived.gres.has_value()) derived.config.gres = derived.gres->ToString();
  derived.config.features = DeriveFeatures(rules, member, warnings);
  derived.config.weight = slurm.weight();
  derived.config.extra.insert(slurm.extra_node_config().begin(), slurm.extra_node_config().end());
  return derived;
}

}  // namespace tidepool::renderer
