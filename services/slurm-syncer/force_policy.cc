#include "force_policy.h"

#include <algorithm>

namespace tidepool::syncer {

bool MayForce(absl::Span<const std::string> allowed, absl::Span<const std::string> identities) {
  return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& entry) {
    return entry == kAnyCaller ||
           std::find(identities.begin(), identities.end(), entry) != identities.end();
  });
}

}  // namespace tidepool::syncer
