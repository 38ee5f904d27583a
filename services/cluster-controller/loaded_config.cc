#include "loaded_config.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tidepool::cluster {
namespace {

constexpr size_t kMaxNamed = 3;

// Collects differences, naming the first few and counting the rest.
class Differences {
 public:
  void Add(std::string difference) {
    if (named_.size() < kMaxNamed) named_.push_back(std::move(difference));
    ++count_;
  }
  std::optional<std::string> Summary() const {
    if (count_ == 0) return std::nullopt;
    std::string summary = absl::StrJoin(named_, "; ");
    if (count_ > named_.size()) absl::StrAppend(&summary, " (", count_, " differences)");
    return summary;
  }

 private:
  std::vector<std::string> named_;
  size_t count_ = 0;
};

std::vector<std::string> Sorted(const google::protobuf::RepeatedPtrField<std::string>& names) {
  std::vector<std::string> sorted(names.begin(), names.end());
  std::sort(sorted.begin(), sorted.end());
  return sorted;
}

void CompareNode(const v1::LoadedNode& expected, const v1::SlurmNode& listed,
                 Differences& differences) {
  if (expected.cpus() > 0 && listed.cpus() != expected.cpus()) {
    differences.Add(absl::StrCat(expected.name(), " has ", listed.cpus(), " CPUs, the config ",
                                 expected.cpus()));
  }
  if (expected.real_memory_mib() > 0 && listed.real_memory_mb() != expected.real_memory_mib()) {
    differences.Add(absl::StrCat(expected.name(), " has RealMemory ", listed.real_memory_mb(),
                                 ", the config ", expected.real_memory_mib()));
  }
  std::vector<std::string> partitions = Sorted(listed.partitions());
  if (!std::equal(partitions.begin(), partitions.end(), expected.partitions().begin(),
                  expected.partitions().end())) {
    differences.Add(absl::StrCat(expected.name(), " is in partitions [",
                                 absl::StrJoin(partitions, ","), "], the config [",
                                 absl::StrJoin(expected.partitions(), ","), "]"));
  }
}

}  // namespace

std::optional<std::string> LoadedConfigMismatch(
    const google::protobuf::RepeatedPtrField<v1::LoadedNode>& expected,
    const google::protobuf::RepeatedPtrField<v1::SlurmNode>& listed) {
  absl::flat_hash_map<std::string, const v1::SlurmNode*> listed_by_name;
  listed_by_name.reserve(listed.size());
  for (const v1::SlurmNode& node : listed) listed_by_name.emplace(node.name(), &node);
  Differences differences;
  for (const v1::LoadedNode& node : expected) {
    auto it = listed_by_name.find(node.name());
    if (it == listed_by_name.end()) {
      differences.Add(absl::StrCat("slurmctld does not list ", node.name()));
      continue;
    }
    CompareNode(node, *it->second, differences);
    listed_by_name.erase(it);
  }
  std::vector<std::string> extra;
  for (const auto& [name, node] : listed_by_name) extra.push_back(name);
  std::sort(extra.begin(), extra.end());
  for (const std::string& name : extra) {
    differences.Add(absl::StrCat("slurmctld still lists ", name, ", which the config removed"));
  }
  return differences.Summary();
}

}  // namespace tidepool::cluster
