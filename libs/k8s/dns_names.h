#pragma once

// Kubernetes' name rules (RFC 1123): a namespace or a pod's DNS search label is a DNS label,
// most object names and a cluster domain are DNS subdomains (labels joined by '.').

#include "absl/strings/string_view.h"

namespace tidepool::k8s {

inline constexpr size_t kMaxDnsLabel = 63;
inline constexpr size_t kMaxDnsSubdomain = 253;

// Lowercase letters, digits and '-', not at either end; 1-63 characters.
bool IsDnsLabel(absl::string_view text);
// DNS labels joined by '.'; at most 253 characters.
bool IsDnsSubdomain(absl::string_view text);

}  // namespace tidepool::k8s
