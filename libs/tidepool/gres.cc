#include "tidepool/gres.h"

#include <array>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "k8s/quantity.h"
#include "tidepool/quantity_memo.h"

namespace tidepool::api {
namespace {

constexpr char kGpuResource[] = "nvidia.com/gpu";
// Product-line words that say nothing alone: "RTX-A6000" is the A6000.
constexpr std::array<absl::string_view, 4> kFamilyWords = {"rtx", "geforce", "quadro", "tesla"};

bool IsGresWord(absl::string_view word) {
  if (word.empty() || !absl::ascii_isalpha(word[0])) return false;
  for (char c : word) {
    if (!absl::ascii_isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

std::string Alphanumeric(absl::string_view text) {
  std::string result;
  for (char c : text) {
    if (absl::ascii_isalnum(c)) result.push_back(absl::ascii_tolower(c));
  }
  return result;
}

bool IsFamilyWord(absl::string_view word) {
  for (absl::string_view family : kFamilyWords) {
    if (word == family) return true;
  }
  return false;
}

}  // namespace

std::string GresSpec::ToString() const {
  return type.empty() ? absl::StrCat(name, ":", count) : absl::StrCat(name, ":", type, ":", count);
}

absl::StatusOr<GresSpec> ParseGresSpec(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  const auto invalid = [&] {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"", text, "\" is not name:type:count or name:count (for example gpu:h100:8)"));
  };
  if (parts.size() < 2 || parts.size() > 3) return invalid();
  GresSpec spec;
  spec.name = std::string(parts[0]);
  if (parts.size() == 3) spec.type = std::string(parts[1]);
  if (!IsGresWord(spec.name) || (parts.size() == 3 && !IsGresWord(spec.type)) ||
      !absl::SimpleAtoi(parts.back(), &spec.count) || spec.count < 1 || spec.count > 1024) {
    return invalid();
  }
  return spec;
}

namespace {

std::string ComputeSlurmGpuType(absl::string_view product) {
  std::vector<std::string> words;
  for (absl::string_view word :
       absl::StrSplit(product, absl::ByAnyChar("-_ "), absl::SkipEmpty())) {
    words.push_back(absl::AsciiStrToLower(std::string(word)));
  }
  size_t first = 0;
  if (first < words.size() && words[first] == "nvidia") ++first;
  if (first < words.size() && words[first] == "tesla") ++first;
  if (first >= words.size()) return "";
  std::string type = Alphanumeric(words[first]);
  if (IsFamilyWord(words[first]) && first + 1 < words.size()) {
    type += Alphanumeric(words[first + 1]);
  }
  if (type.empty() || !absl::ascii_isalpha(type[0])) return "";
  return type;
}

}  // namespace

// A cluster has a handful of GPU products but thousands of Nodes: remember the answers.
// Bounded, so unusual labels cannot grow it without limit.
std::string SlurmGpuType(absl::string_view product) {
  constexpr size_t kMaxRemembered = 256;
  thread_local absl::flat_hash_map<std::string, std::string> remembered;
  if (auto it = remembered.find(product); it != remembered.end()) return it->second;
  std::string type = ComputeSlurmGpuType(product);
  if (remembered.size() < kMaxRemembered) remembered.emplace(product, type);
  return type;
}

absl::StatusOr<std::optional<GresSpec>> NodeGpuGres(const tidepool::v1::NodeInfo& node) {
  int64_t count = 0;
  const auto& allocatable = node.allocatable();
  const auto& labels = node.metadata().labels();
  if (auto it = allocatable.find(kGpuResource); it != allocatable.end()) {
    thread_local QuantityMemo gpu_quantities(k8s::QuantityValue);
    absl::StatusOr<int64_t> value = gpu_quantities.Parse(it->second);
    if (!value.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("Node ", node.metadata().name(),
                                                     ": allocatable ", kGpuResource, ": ",
                                                     value.status().message()));
    }
    count = *value;
  } else if (auto label = labels.find(kGpuCountLabel); label != labels.end()) {
    if (!absl::SimpleAtoi(label->second, &count) || count < 0) {
      return absl::InvalidArgumentError(absl::StrCat("Node ", node.metadata().name(), ": label ",
                                                     kGpuCountLabel, "=\"", label->second,
                                                     "\" is not a GPU count"));
    }
  }
  if (count <= 0) return std::nullopt;
  GresSpec spec{.name = "gpu", .type = "", .count = static_cast<int>(count)};
  if (auto product = labels.find(kGpuProductLabel); product != labels.end()) {
    spec.type = SlurmGpuType(product->second);
  }
  return spec;
}

}  // namespace tidepool::api
