#pragma once

// Per-method authorisation of gRPC callers by their certificate identity (mutual TLS).
// gRPC's own authorization policy engine (grpcpp_authz) is not in Debian's gRPC packages,
// so each handler asks a MethodAuthorizer first.

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/status.h"

namespace tidepool::common {

// Callers allowed to call one method: `method` is the full name
// ("/tidepool.v1.SlurmSyncer/UpdateNode"), `callers` the identities (DNS names in the
// callers' certificates) allowed.
struct MethodGrant {
  std::string method;
  std::vector<std::string> callers;
};

class MethodAuthorizer {
 public:
  // `enforce` false (plaintext gRPC, no identities): every call is allowed.
  MethodAuthorizer(std::vector<MethodGrant> grants, bool enforce);

  // OK when the caller of `context` may call `method` (a full name); PERMISSION_DENIED
  // naming the caller, the method and who may call it, logged, otherwise. A method
  // without a grant admits nobody.
  grpc::Status Check(const grpc::ServerContext& context, absl::string_view method) const;

  bool enforcing() const { return enforce_; }

 private:
  absl::flat_hash_map<std::string, std::vector<std::string>> callers_by_method_;
  bool enforce_;
};

// The caller's verified identities (its certificate's DNS names, or its common name when it
// has none); empty on a plaintext connection.
std::vector<std::string> PeerIdentities(const grpc::ServerContext& context);

}  // namespace tidepool::common
