#include "tidepool/naming.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tidepool::api {

std::string SlurmConfigMapName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-slurm-config");
}

std::string MungeKeySecretName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-munge-key");
}

std::string JwtKeySecretName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-jwt-key");
}

std::string ControllerName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-controller");
}

std::string ControllerPodName(absl::string_view cluster, int index) {
  return absl::StrCat(cluster, "-controller-", index);
}

std::string ControllerStateClaimName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-controller-state");
}

std::string ComputeServiceName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-compute");
}

std::string ComputeSearchDomain(absl::string_view cluster, absl::string_view ns,
                                absl::string_view cluster_domain) {
  return absl::StrCat(ComputeServiceName(cluster), ".", ns, ".svc.", cluster_domain);
}

std::string RestApiName(absl::string_view cluster) { return absl::StrCat(cluster, "-restapi"); }
std::string RestApiTlsSecretName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-restapi-tls");
}

std::string AccountingName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-accounting");
}

std::string AccountingDatabaseName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-accounting-db");
}

std::string AccountingCredentialsSecretName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-accounting-db-credentials");
}

std::string LoginName(absl::string_view cluster) { return absl::StrCat(cluster, "-login"); }

std::string LoginHostKeysSecretName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-login-host-keys");
}

std::string UsersConfigMapName(absl::string_view cluster) {
  return absl::StrCat(cluster, "-users");
}

std::string NamePrefix(const tidepool::v1::NodeSet& node_set) {
  return node_set.spec().name_prefix().empty() ? node_set.metadata().name()
                                               : node_set.spec().name_prefix();
}

std::string SlurmNodeName(absl::string_view prefix, int ordinal) {
  return absl::StrFormat("%s-%02d", prefix, ordinal);
}

int OrdinalOf(absl::string_view prefix, absl::string_view name) {
  if (name.size() <= prefix.size() + 1 || !absl::StartsWith(name, prefix) ||
      name[prefix.size()] != '-') {
    return -1;
  }
  const absl::string_view digits = name.substr(prefix.size() + 1);
  int ordinal = 0;
  if (!std::all_of(digits.begin(), digits.end(), absl::ascii_isdigit) || digits.size() > 9 ||
      !absl::SimpleAtoi(digits, &ordinal)) {
    return -1;
  }
  return ordinal;
}

std::vector<int> LowestFreeOrdinals(const std::vector<int>& taken, int count) {
  std::vector<int> sorted = taken;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> free;
  free.reserve(count);
  size_t next_taken = 0;
  for (int candidate = 1; static_cast<int>(free.size()) < count; ++candidate) {
    while (next_taken < sorted.size() && sorted[next_taken] < candidate) ++next_taken;
    if (next_taken < sorted.size() && sorted[next_taken] == candidate) continue;
    free.push_back(candidate);
  }
  return free;
}

}  // namespace tidepool::api
