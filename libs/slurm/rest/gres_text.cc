#include "slurm/rest/gres_text.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace tidepool::slurm::rest {
namespace {

// Entries split at commas outside parentheses: "(IDX:0,2)" holds commas of its own.
std::vector<absl::string_view> Entries(absl::string_view gres) {
  std::vector<absl::string_view> entries;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < gres.size(); ++i) {
    if (gres[i] == '(') ++depth;
    if (gres[i] == ')' && depth > 0) --depth;
    if (gres[i] == ',' && depth == 0) {
      entries.push_back(gres.substr(start, i - start));
      start = i + 1;
    }
  }
  entries.push_back(gres.substr(start));
  return entries;
}

// "gpu:h100:8(S:0-1)" -> 8 when its name is `name`; 0 otherwise.
int64_t EntryCount(absl::string_view entry, absl::string_view name) {
  entry = entry.substr(0, entry.find('('));
  const std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
  if (parts.size() < 2 || parts.size() > 3 || parts.front() != name) return 0;
  int64_t count = 0;
  if (!absl::SimpleAtoi(parts.back(), &count) || count < 0) return 0;
  return count;
}

}  // namespace

int64_t GresCount(absl::string_view gres, absl::string_view name) {
  if (gres.empty() || gres == "N/A") return 0;
  int64_t total = 0;
  for (absl::string_view entry : Entries(gres)) total += EntryCount(entry, name);
  return total;
}

}  // namespace tidepool::slurm::rest
