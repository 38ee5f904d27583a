#pragma once

// Tells the operator what gRPC's certificate reloads do: the expiry of the certificate in
// the service's Secret as a metric (alerts fire before it lapses), a log line when a renewed
// certificate appears, and a warning when the files there are not a usable identity.

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/grpc_tls.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"

namespace tidepool::common {

// The owner calls Check every tls.reload_every, the period gRPC reads the files at.
class GrpcTlsWatch {
 public:
  // Starts from `tls` as loaded at start (tls.dir set).
  GrpcTlsWatch(const std::string& service, const GrpcTls& tls, prometheus::Registry& registry);
  GrpcTlsWatch(const GrpcTlsWatch&) = delete;
  GrpcTlsWatch& operator=(const GrpcTlsWatch&) = delete;

  // Reads the directory again; logs and counts what changed since the last usable read.
  void Check();

 private:
  // Sets the expiry metric from the certificate; returns the expiry (or why there is none)
  // as text for the log.
  std::string PublishExpiry(const std::string& cert_pem);

  const std::string dir_;
  prometheus::Gauge& expiry_;
  prometheus::Family<prometheus::Counter>& reloads_;
  absl::Mutex mutex_;
  std::string cert_pem_ ABSL_GUARDED_BY(mutex_);
  std::string ca_pem_ ABSL_GUARDED_BY(mutex_);
  std::string last_error_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::common
