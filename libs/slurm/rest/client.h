#pragma once

// The Slurm REST client: every call slurm-syncer makes to slurmrestd passes here.
//
//   transport (transport.h)  HTTP over TCP or a UNIX socket, one attempt per call
//   auth (auth.h)            JWT from the key, a token file, or none
//   version negotiation      GET /openapi/v3 (else ping per version): the newest of
//                            [oldest_version, newest_version] the server serves
//   mapping (json_mapping.h) JSON ⇄ model.h, errors[] checked on every reply
//   this class               typed operations, per-call timeout, retries for GET
//
// Only GET is retried (bounded, exponential backoff on the injected clock), and only
// for failures that may pass: unreachable server, timeout, HTTP 429/502/503/504.
// Thread-safe: calls may run concurrently.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "slurm/rest/auth.h"
#include "slurm/rest/errors.h"
#include "slurm/rest/model.h"
#include "slurm/rest/transport.h"

namespace tidepool::slurm::rest {

struct RetryPolicy {
  int max_attempts = 4;  // attempts in all, for GET; 1 = no retry
  absl::Duration initial_backoff = absl::Milliseconds(200);
  double multiplier = 2.0;
  absl::Duration max_backoff = absl::Seconds(5);

  // The wait before retry `retry` (1 = the first retry): initial · multiplier^(retry-1),
  // at most max_backoff.
  absl::Duration Backoff(int retry) const;
};

struct ClientOptions {
  std::string base_url = "http://127.0.0.1:6820";
  std::string unix_socket;  // when set, requests go over this socket instead of TCP
  // https: trust only this CA (PEM); empty: the system's CAs.
  std::string ca_pem;
  // Where to connect instead of the URL's host, which the certificate must still name
  // (libcurl's CONNECT_TO: "host:port:address:port"); empty: the URL's.
  std::string connect_to;
  std::shared_ptr<Authenticator> auth;         // null: no credentials (rest_auth/local)
  absl::Duration timeout = absl::Seconds(30);  // per attempt
  RetryPolicy retry;
  common::Clock* clock = nullptr;  // null: common::RealClock()
  std::string oldest_version = "v0.0.42";
  std::string newest_version = "v0.0.45";
  // Use this version without asking the server (tests, or a pinned deployment).
  std::string version;
  // Told once which version was chosen and what the server serves (for a log line).
  std::function<void(absl::string_view chosen, const std::vector<std::string>& served)> on_version;
};

// "v0.0.42" → 42; nullopt for anything else.
std::optional<int> DataParserMinor(absl::string_view version);
// Whether a data_parser version takes external jobs (JobSubmission::external): v0.0.43+.
bool ServesExternalJobs(absl::string_view version);
// The newest of `served` within [oldest, newest]; NotFound naming both sides if none.
absl::StatusOr<std::string> ChooseVersion(const std::vector<std::string>& served,
                                          absl::string_view oldest, absl::string_view newest);

class Client {
 public:
  // Negotiates the version (unless options.version is set) over a libcurl transport.
  static absl::StatusOr<std::unique_ptr<Client>> Connect(ClientOptions options);
  // The same over a given transport (tests).
  static absl::StatusOr<std::unique_ptr<Client>> Connect(ClientOptions options,
                                                         std::unique_ptr<Transport> transport);

  const std::string& version() const { return version_; }
  // What the server serves (empty when options.version was given or it was probed).
  const std::vector<std::string>& served_versions() const { return served_; }
  std::string Describe() const;  // "slurmrestd http://127.0.0.1:6820 v0.0.45"

  absl::StatusOr<std::vector<PingResult>> Ping();
  absl::StatusOr<DiagInfo> Diag();

  absl::StatusOr<NodeList> GetNodes();
  // Nodes if any changed since `since` (Slurm then returns all of them), else
  // unchanged=true. Pass the previous reply's last_update.
  absl::StatusOr<NodeList> GetNodesSince(absl::Time since);
  absl::StatusOr<Node> GetNode(absl::string_view name);
  absl::Status UpdateNode(absl::string_view name, const NodeUpdate& update);
  absl::Status DeleteNode(absl::string_view name);

  absl::StatusOr<JobList> GetJobs();
  // Every job's id and state only (GET jobs/state/): cheap enough to poll often.
  absl::StatusOr<std::vector<JobStateEntry>> GetJobStates();
  absl::StatusOr<Job> GetJob(JobId id);
  absl::StatusOr<SubmitResult> SubmitJob(const JobSubmission& job);
  // Signals the job ("SIGKILL", "TERM", "9"); an empty signal cancels it.
  absl::Status CancelJob(JobId id, absl::string_view signal = "");
  absl::Status UpdateJob(JobId id, const JobUpdate& update);

  absl::StatusOr<std::vector<Partition>> GetPartitions();
  absl::StatusOr<std::vector<Reservation>> GetReservations();
  absl::Status Reconfigure();

  // One request with auth, timeout, retries (GET, unless kOnce) and HTTP status checks;
  // the body of a 2xx reply (or 304) for the mapping. `path` is below /slurm/<version>/.
  struct Reply {
    CallContext call;
    std::string body;
  };
  // kOnce: a GET that is not idempotent (reconfigure: a retry after a timeout restarts
  // slurmctld again, when the first one reached it).
  enum class Attempts { kRetryGet, kOnce };
  absl::StatusOr<Reply> Call(absl::string_view method, absl::string_view path,
                             std::string body = "", Attempts attempts = Attempts::kRetryGet);

 private:
  Client(ClientOptions options, std::unique_ptr<Transport> transport);
  absl::StatusOr<Reply> CallAbsolute(absl::string_view method, std::string path, std::string body,
                                     Attempts attempts = Attempts::kRetryGet);
  absl::Status Negotiate();

  ClientOptions options_;
  std::unique_ptr<Transport> transport_;
  common::Clock* clock_;
  std::string version_;
  std::vector<std::string> served_;
};

}  // namespace tidepool::slurm::rest
