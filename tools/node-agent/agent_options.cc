#include "agent_options.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace tidepool::node_agent {
namespace {

bool IsValidEffect(absl::string_view effect) {
  return effect == "NoSchedule" || effect == "PreferNoSchedule" || effect == "NoExecute";
}

}  // namespace

absl::StatusOr<Labels> ParseLabels(absl::string_view text) {
  Labels labels;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (kv.first.empty() || !absl::StrContains(item, '=')) {
      return absl::InvalidArgumentError(absl::StrCat("label \"", item, "\" is not key=value"));
    }
    labels[std::string(kv.first)] = std::string(kv.second);
  }
  return labels;
}

absl::StatusOr<std::vector<Taint>> ParseTaints(absl::string_view text) {
  std::vector<Taint> taints;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    const size_t colon = item.rfind(':');
    if (colon == absl::string_view::npos || !IsValidEffect(item.substr(colon + 1))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "taint \"", item,
          "\" is not key[=value]:Effect with Effect NoSchedule, PreferNoSchedule or NoExecute"));
    }
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(item.substr(0, colon), absl::MaxSplits('=', 1));
    if (kv.first.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("taint \"", item, "\" has no key"));
    }
    taints.push_back(
        {std::string(kv.first), std::string(kv.second), std::string(item.substr(colon + 1))});
  }
  return taints;
}

absl::StatusOr<std::map<std::string, Labels>> ParseNodeLabelsFile(absl::string_view content) {
  std::map<std::string, Labels> by_node;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(content, '\n')) {
    ++line_number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    std::pair<absl::string_view, absl::string_view> parts =
        absl::StrSplit(line, absl::MaxSplits(absl::ByAnyChar(" \t"), 1));
    absl::StatusOr<Labels> labels = ParseLabels(parts.second);
    if (!labels.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("line ", line_number, ": ", labels.status().message()));
    }
    by_node[std::string(parts.first)].merge(*labels);
  }
  return by_node;
}

std::vector<std::string> SimNodeNames(absl::string_view prefix, int count) {
  const int width = std::max<int>(2, absl::StrCat(count).size());
  std::vector<std::string> names;
  for (int i = 1; i <= count; ++i) names.push_back(absl::StrFormat("%s%0*d", prefix, width, i));
  return names;
}

std::string SyntheticNodeAddress(int ordinal) {
  const int index = ordinal - 1;
  // 250 addresses per block, blocks from 10.77.250 on and past 10.77.255 into 10.78.
  const int block = 250 + index / 250;
  return absl::StrFormat("10.%d.%d.%d", 77 + block / 256, block % 256, index % 250 + 1);
}

std::vector<SimNode> BuildSimNodes(const AgentOptions& options,
                                   const std::map<std::string, std::string>& slurm_addresses) {
  std::vector<SimNode> nodes;
  int ordinal = 0;
  for (const std::string& name : SimNodeNames(options.node_prefix, options.node_count)) {
    SimNode node{.name = name, .ordinal = ++ordinal};
    auto address = slurm_addresses.find(name);
    node.address =
        address != slurm_addresses.end() ? address->second : SyntheticNodeAddress(ordinal);
    node.labels = options.node.labels;
    auto own = options.per_node_labels.find(name);
    if (own != options.per_node_labels.end()) {
      for (const auto& [key, value] : own->second) node.labels[key] = value;
    }
    nodes.push_back(std::move(node));
  }
  return nodes;
}

}  // namespace tidepool::node_agent
