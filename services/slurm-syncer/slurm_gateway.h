#pragma once

// The one door to slurmrestd: every Slurm call of the syncer passes here, is counted and
// timed by endpoint and outcome, and waits for a connection made lazily, so the syncer
// starts (and stays up, unready) while slurmrestd is down and connects once it is back.
//
//   tidepool_slurm_syncer_rest_requests_total{endpoint, method, outcome}
//   tidepool_slurm_syncer_rest_request_duration_seconds{endpoint, method}

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "rest_endpoint.h"
#include "slurm/rest/client.h"

namespace tidepool::syncer {

class SlurmGateway {
 public:
  // Does not connect; the first call (or Connect) does. Connection attempts are at
  // least `reconnect_interval` apart; calls in between get the last failure. With
  // `resolve_endpoint`, looked up anew before each connection attempt, options' base_url,
  // ca_pem and connect_to are replaced by what it returns.
  SlurmGateway(slurm::rest::ClientOptions options, prometheus::Registry& registry,
               absl::Duration reconnect_interval = absl::Seconds(1),
               RestEndpointResolver resolve_endpoint = nullptr);

  // Connects (negotiating the REST version) unless connected; the failure otherwise.
  absl::Status Connect();
  // "slurmrestd http://127.0.0.1:6820 v0.0.45", or where it will connect to.
  std::string Describe();
  std::string version();
  // The Slurm user its requests act as (Authenticator::SlurmUser; this process's user
  // without credentials).
  absl::StatusOr<std::string> SlurmUser();

  absl::StatusOr<std::vector<slurm::rest::PingResult>> Ping();
  absl::StatusOr<slurm::rest::NodeList> GetNodes();
  absl::StatusOr<slurm::rest::NodeList> GetNodesSince(absl::Time since);
  absl::StatusOr<slurm::rest::Node> GetNode(absl::string_view name);
  absl::Status UpdateNode(absl::string_view name, const slurm::rest::NodeUpdate& update);
  absl::StatusOr<slurm::rest::JobList> GetJobs();
  absl::StatusOr<std::vector<slurm::rest::JobStateEntry>> GetJobStates();
  absl::StatusOr<slurm::rest::Job> GetJob(slurm::rest::JobId id);
  // An external `job` goes as one where slurmrestd takes them, else as a batch job
  // running its script (SubmitResult::external says which).
  absl::StatusOr<slurm::rest::SubmitResult> SubmitJob(const slurm::rest::JobSubmission& job);
  absl::Status CancelJob(slurm::rest::JobId id, absl::string_view signal);
  absl::Status Reconfigure();
  absl::StatusOr<slurm::rest::DiagInfo> Diag();

 private:
  struct Endpoint {
    const char* method;
    const char* path;  // the REST path's first segment: bounded label values
  };
  // Shared: a call in flight keeps its client when another call drops it.
  absl::StatusOr<std::shared_ptr<slurm::rest::Client>> ConnectedClient();
  // After `client` could not reach slurmrestd: with a resolver, forgets it, so the next
  // call reads the address again (the Service of a cluster made again has a new IP).
  void ForgetUnreachable(const std::shared_ptr<slurm::rest::Client>& client,
                         const absl::Status& status);
  template <typename Call>
  auto Observe(Endpoint endpoint, Call call)
      -> decltype(call(std::declval<slurm::rest::Client&>()));
  void Record(Endpoint endpoint, const absl::Status& status, absl::Duration took);

  const slurm::rest::ClientOptions options_;
  const absl::Duration reconnect_interval_;
  const RestEndpointResolver resolve_endpoint_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Histogram>& durations_;

  absl::Mutex mutex_;
  std::shared_ptr<slurm::rest::Client> client_ ABSL_GUARDED_BY(mutex_);
  absl::Status last_failure_ ABSL_GUARDED_BY(mutex_);
  absl::Time last_attempt_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
  // The last endpoint resolve_endpoint_ read well (EndpointToUse).
  std::optional<RestEndpoint> last_endpoint_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::syncer
