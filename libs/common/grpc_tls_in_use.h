#pragma once

// The identity gRPC serves and calls with: a private copy of the last usable contents of
// the service's Secret, in memory-backed files only this process reads. gRPC's file
// watcher takes each of the three files on its own as soon as it parses, so watching the
// Secret itself, a wrong renewal (a key of another certificate, a new ca.crt beside an old
// tls.crt) would leave the roots of one version with the identity of another and every
// handshake refused. Only what GrpcTlsWatch has validated is copied here, all three files
// in one rename.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/grpc_tls.h"
#include "grpcpp/security/tls_certificate_provider.h"

namespace tidepool::common {

class GrpcTlsInUse {
 public:
  // Copies `tls` (validated: LoadGrpcTlsDir) into a new directory under `base`, mode 0700
  // (/dev/shm: memory, and writable in a container whose root filesystem is read-only),
  // after removing the copies there of processes that were killed. gRPC reads the copy
  // every `refresh`.
  static absl::StatusOr<std::unique_ptr<GrpcTlsInUse>> Create(
      const GrpcTls& tls, const std::string& base = "/dev/shm",
      absl::Duration refresh = absl::Seconds(1));
  GrpcTlsInUse(const GrpcTlsInUse&) = delete;
  GrpcTlsInUse& operator=(const GrpcTlsInUse&) = delete;
  ~GrpcTlsInUse();  // removes the copy

  // Replaces the copy with `tls` (validated) in one rename; servers and channels take it up
  // for new connections within `refresh`. One caller at a time (GrpcTlsWatch, under its lock).
  absl::Status Publish(const GrpcTls& tls);

  // What servers and channels read the copy through (GrpcTls::provider).
  const std::shared_ptr<grpc::experimental::CertificateProviderInterface>& provider() const {
    return provider_;
  }
  const std::string& dir() const { return dir_; }

 private:
  explicit GrpcTlsInUse(std::string dir) : dir_(std::move(dir)) {}
  // The three files gRPC reads, each a link through ..data; made where missing (at the
  // first Publish, or again after the directory was emptied under the process).
  absl::Status LinkFiles() const;

  const std::string dir_;
  int version_ = 0;           // of the last version written
  std::string live_version_;  // the one ..data links to
  std::shared_ptr<grpc::experimental::CertificateProviderInterface> provider_;
};

}  // namespace tidepool::common
