#include "common/grpc_authz.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/log.h"

namespace tidepool::common {
namespace {

bool AnyAllowed(const std::vector<std::string>& allowed, const std::vector<std::string>& caller) {
  return std::any_of(caller.begin(), caller.end(), [&](const std::string& identity) {
    return std::find(allowed.begin(), allowed.end(), identity) != allowed.end();
  });
}

}  // namespace

MethodAuthorizer::MethodAuthorizer(std::vector<MethodGrant> grants, bool enforce)
    : enforce_(enforce) {
  for (MethodGrant& grant : grants) {
    callers_by_method_[grant.method] = std::move(grant.callers);
  }
}

grpc::Status MethodAuthorizer::Check(const grpc::ServerContext& context,
                                     absl::string_view method) const {
  if (!enforce_) return grpc::Status::OK;
  const std::vector<std::string> caller = PeerIdentities(context);
  const auto grant = callers_by_method_.find(method);
  const std::vector<std::string> none;
  const std::vector<std::string>& allowed =
      grant == callers_by_method_.end() ? none : grant->second;
  if (AnyAllowed(allowed, caller)) return grpc::Status::OK;
  const std::string who = caller.empty() ? "(no identity)" : absl::StrJoin(caller, ",");
  const std::string may = allowed.empty() ? "nobody" : absl::StrJoin(allowed, ", ");
  LogWarn("grpc_call_denied", {{"method", method}, {"caller", who}, {"allowed", may}});
  return {grpc::StatusCode::PERMISSION_DENIED,
          absl::StrCat(who, " may not call ", method, " (allowed: ", may, ")")};
}

std::vector<std::string> PeerIdentities(const grpc::ServerContext& context) {
  std::vector<std::string> identities;
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return identities;
  for (const grpc::string_ref& identity : auth->GetPeerIdentity()) {
    identities.emplace_back(identity.data(), identity.size());
  }
  return identities;
}

}  // namespace tidepool::common
