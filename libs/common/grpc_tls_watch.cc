#include "common/grpc_tls_watch.h"

#include "common/log.h"
#include "common/metrics.h"

namespace tidepool::common {

GrpcTlsWatch::GrpcTlsWatch(const std::string& service, const GrpcTls& tls,
                           prometheus::Registry& registry, GrpcTlsInUse* in_use)
    : dir_(tls.dir),
      in_use_(in_use),
      expiry_(prometheus::BuildGauge()
                  .Name(MetricName(service, "grpc_certificate_expiry_timestamp_seconds"))
                  .Help("When the gRPC certificate in --grpc_tls_dir expires (Unix time)")
                  .Register(registry)
                  .Add({})),
      reloads_(prometheus::BuildCounter()
                   .Name(MetricName(service, "grpc_tls_reloads_total"))
                   .Help("Changes seen in --grpc_tls_dir: renewed (a usable new identity) or "
                         "unusable (the files are not a valid identity)")
                   .Register(registry)) {
  AddZeroSeries(reloads_, {{"result", {"renewed", "unusable"}}});
  {
    absl::MutexLock lock(&mutex_);
    cert_pem_ = tls.cert_pem;
    ca_pem_ = tls.ca_pem;
  }
  LogInfo("grpc_tls_loaded", {{"dir", dir_},
                              {"not_after", PublishExpiry(tls.cert_pem)},
                              {"reload_interval", tls.reload_every}});
}

std::string GrpcTlsWatch::PublishExpiry(const std::string& cert_pem) {
  absl::StatusOr<absl::Time> not_after = CertificateNotAfter(cert_pem);
  if (!not_after.ok()) return std::string(not_after.status().message());
  expiry_.Set(static_cast<double>(absl::ToUnixSeconds(*not_after)));
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", *not_after, absl::UTCTimeZone());
}

void GrpcTlsWatch::Check() {
  // Read under the lock: a read finished before another Check's must not be applied after it.
  absl::MutexLock lock(&mutex_);
  absl::StatusOr<GrpcTls> loaded = LoadGrpcTlsDir(dir_);
  if (!loaded.ok()) {
    const std::string error(loaded.status().message());
    if (error == last_error_) return;  // said once per distinct problem
    last_error_ = error;
    reloads_.Add({{"result", "unusable"}}).Increment();
    LogWarn("grpc_tls_unusable",
            {{"error", error},
             {"effect",
              "the service keeps the identity it has; a renewal is taken up once "
              "the Secret holds a usable one"},
             {"fix", "make the Secret's ca.crt, tls.crt and tls.key one identity again"}});
    return;
  }
  last_error_.clear();
  if (loaded->cert_pem == cert_pem_ && loaded->ca_pem == ca_pem_) return;
  if (in_use_ != nullptr) {
    if (absl::Status published = in_use_->Publish(*loaded); !published.ok()) {
      LogWarn("grpc_tls_not_taken_up", {{"error", published},
                                        {"effect",
                                         "the service keeps the identity it has; "
                                         "tried again at the next look"}});
      return;
    }
  }
  cert_pem_ = loaded->cert_pem;
  ca_pem_ = loaded->ca_pem;
  reloads_.Add({{"result", "renewed"}}).Increment();
  LogInfo("grpc_tls_renewed", {{"dir", dir_},
                               {"not_after", PublishExpiry(loaded->cert_pem)},
                               {"effect", "new gRPC connections use the renewed certificate"}});
}

}  // namespace tidepool::common
