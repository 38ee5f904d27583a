#include "k8s/dns_names.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"

namespace tidepool::k8s {

bool IsDnsLabel(absl::string_view text) {
  if (text.empty() || text.size() > kMaxDnsLabel) return false;
  if (text.front() == '-' || text.back() == '-') return false;
  for (char c : text) {
    if (!absl::ascii_islower(c) && !absl::ascii_isdigit(c) && c != '-') return false;
  }
  return true;
}

bool IsDnsSubdomain(absl::string_view text) {
  if (text.empty() || text.size() > kMaxDnsSubdomain) return false;
  for (absl::string_view label : absl::StrSplit(text, '.')) {
    if (!IsDnsLabel(label)) return false;
  }
  return true;
}

}  // namespace tidepool::k8s
