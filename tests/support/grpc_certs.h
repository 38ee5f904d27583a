#pragma once

// gRPC mutual TLS identities for tests, made by the project's tools/grpc-certs/make.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/grpc_tls.h"

namespace tidepool::testing {

// Makes (or reuses) a CA under `dir` and a certificate for each of `identities`; the
// identity's files are in <dir>/<identity>/ (ca.crt, tls.crt, tls.key).
absl::Status MakeGrpcCertificates(const std::string& dir,
                                  const std::vector<std::string>& identities);

// The TLS material of <dir>/<identity>/, as a service would load it.
absl::StatusOr<common::GrpcTls> GrpcIdentity(const std::string& dir, const std::string& identity);

}  // namespace tidepool::testing
