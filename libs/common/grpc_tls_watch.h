#pragma once

// Looks at the service's Secret for a renewed identity and hands a usable one to gRPC (its
// GrpcTlsInUse); one that is not usable changes nothing. Tells the operator what happened:
// the expiry of the certificate in use as a metric (alerts fire before it lapses), a log line
// when a renewal is taken up, a warning when the Secret does not hold a usable identity.

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/grpc_tls.h"
#include "common/grpc_tls_in_use.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace tidepool::common {

// The owner calls Check every tls.reload_every, the period gRPC reads the files at.
class GrpcTlsWatch {
 public:
  // Starts from `tls` as loaded at start (tls.dir set). Renewals go to `in_use` (outlives
  // the watch); null: only looked at and reported.
  GrpcTlsWatch(const std::string& service, const GrpcTls& tls, prometheus::Registry& registry,
               GrpcTlsInUse* in_use = nullptr);
  GrpcTlsWatch(const GrpcTlsWatch&) = delete;
  GrpcTlsWatch& operator=(const GrpcTlsWatch&) = delete;

  // Reads the directory again; logs and counts what changed since the last usable read.
  void Check();

 private:
  // Sets the expiry metric from the certificate; returns the expiry (or why there is none)
  // as text for the log.
  std::string PublishExpiry(const std::string& cert_pem);

  const std::string dir_;
  GrpcTlsInUse* const in_use_;
  prometheus::Gauge& expiry_;
  prometheus::Family<prometheus::Counter>& reloads_;
  absl::Mutex mutex_;
  std::string cert_pem_ ABSL_GUARDED_BY(mutex_);
  std::string ca_pem_ ABSL_GUARDED_BY(mutex_);
  std::string last_error_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::common
