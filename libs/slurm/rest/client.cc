#include "slurm/rest/client.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "slurm/rest/json_mapping.h"

namespace tidepool::slurm::rest {
namespace {

bool IsRetryable(const absl::Status& status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status) ||
         absl::IsResourceExhausted(status);
}

// An HTTP 404 without a Slurm error: the server has no such path (see HttpStatusError).
bool IsUnservedPath(const absl::Status& status) { return absl::IsUnimplemented(status); }

// A path segment, percent-encoded except for unreserved characters.
std::string Escape(absl::string_view segment) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : segment) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace

absl::Duration RetryPolicy::Backoff(int retry) const {
  if (retry < 1) return absl::ZeroDuration();
  const double factor = std::pow(multiplier, retry - 1);
  const absl::Duration wait = initial_backoff * factor;
  return std::min(wait, max_backoff);
}

std::optional<int> DataParserMinor(absl::string_view version) {
  if (!absl::ConsumePrefix(&version, "v0.0.")) return std::nullopt;
  int minor = 0;
  if (version.empty() || !absl::SimpleAtoi(version, &minor) || minor < 0) return std::nullopt;
  return minor;
}

bool ServesExternalJobs(absl::string_view version) {
  constexpr int kFirstWithExternalJobs = 43;
  const std::optional<int> minor = DataParserMinor(version);
  return minor.has_value() && *minor >= kFirstWithExternalJobs;
}

absl::StatusOr<std::string> ChooseVersion(const std::vector<std::string>& served,
                                          absl::string_view oldest, absl::string_view newest) {
  const std::optional<int> lo = DataParserMinor(oldest);
  const std::optional<int> hi = DataParserMinor(newest);
  if (!lo.has_value() || !hi.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("version range ", oldest, "–", newest, " is not of the form v0.0.N"));
  }
  std::optional<int> best;
  for (const std::string& v : served) {
    const std::optional<int> minor = DataParserMinor(v);
    if (minor.has_value() && *minor >= *lo && *minor <= *hi && (!best || *minor > *best)) {
      best = minor;
    }
  }
  if (!best.has_value()) {
    return absl::NotFoundError(
        absl::StrCat("slurmrestd serves ",
                     served.empty() ? "no data_parser version" : absl::StrJoin(served, " "),
                     "; this client speaks ", oldest, "–", newest));
  }
  return absl::StrCat("v0.0.", *best);
}

Client::Client(ClientOptions options, std::unique_ptr<Transport> transport)
    : options_(std::move(options)),
      transport_(std::move(transport)),
      clock_(options_.clock != nullptr ? options_.clock : common::RealClock()) {}

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(ClientOptions options) {
  CurlTransportOptions transport{.base_url = options.base_url,
                                 .unix_socket = options.unix_socket,
                                 .ca_pem = options.ca_pem,
                                 .connect_to = options.connect_to};
  return Connect(std::move(options), NewCurlTransport(std::move(transport)));
}

absl::StatusOr<std::unique_ptr<Client>> Client::Connect(ClientOptions options,
                                                        std::unique_ptr<Transport> transport) {
  if (transport == nullptr) return absl::InvalidArgumentError("no transport");
  std::unique_ptr<Client> client(new Client(std::move(options), std::move(transport)));
  if (!client->options_.version.empty()) {
    if (!DataParserMinor(client->options_.version).has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("version ", client->options_.version, " is not of the form v0.0.N"));
    }
    client->version_ = client->options_.version;
  } else if (absl::Status s = client->Negotiate(); !s.ok()) {
    return s;
  }
  if (client->options_.on_version) {
    client->options_.on_version(client->version_, client->served_);
  }
  return client;
}

std::string Client::Describe() const {
  return absl::StrCat("slurmrestd ", transport_->Describe(), " ", version_);
}

absl::Status Client::Negotiate() {
  absl::StatusOr<Reply> openapi = CallAbsolute("GET", "/openapi/v3", "");
  if (openapi.ok()) {
    absl::StatusOr<std::vector<std::string>> served =
        ParseOpenApiVersions(openapi->body, openapi->call);
    if (served.ok() && !served->empty()) {
      absl::StatusOr<std::string> chosen =
          ChooseVersion(*served, options_.oldest_version, options_.newest_version);
      if (!chosen.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat(transport_->Describe(), ": ", chosen.status().message()));
      }
      version_ = *std::move(chosen);
      served_ = *std::move(served);
      return absl::OkStatus();
    }
  } else if (!IsUnservedPath(openapi.status())) {
    // Unreachable or refused credentials: probing each version would fail the same way.
    return openapi.status();
  }
  // No usable OpenAPI document: ask ping/ of each version, newest first.
  const int lo = DataParserMinor(options_.oldest_version).value_or(42);
  const int hi = DataParserMinor(options_.newest_version).value_or(45);
  absl::Status last = absl::NotFoundError("no version probed");
  for (int minor = hi; minor >= lo; --minor) {
    const std::string version = absl::StrCat("v0.0.", minor);
    absl::StatusOr<Reply> ping =
        CallAbsolute("GET", absl::StrCat("/slurm/", version, "/ping/"), "");
    if (ping.ok()) {
      version_ = version;
      return absl::OkStatus();
    }
    if (!IsUnservedPath(ping.status())) return ping.status();
    last = ping.status();
  }
  return absl::FailedPreconditionError(
      absl::StrCat(transport_->Describe(), " serves none of ", options_.oldest_version, "–",
                   options_.newest_version, " (last: ", last.message(), ")"));
}

absl::StatusOr<Client::Reply> Client::Call(absl::string_view method, absl::string_view path,
                                           std::string body, Attempts attempts) {
  return CallAbsolute(method, absl::StrCat("/slurm/", version_, "/", path), std::move(body),
                      attempts);
}

absl::StatusOr<Client::Reply> Client::CallAbsolute(absl::string_view method, std::string path,
                                                   std::string body, Attempts attempts_wanted) {
  HttpRequest request;
  request.method = std::string(method);
  request.path = std::move(path);
  request.body = std::move(body);
  request.timeout = options_.timeout;
  Reply reply;
  reply.call.method = request.method;
  reply.call.path = request.path;
  const bool idempotent = request.method == "GET" && attempts_wanted == Attempts::kRetryGet;
  const int attempts = idempotent ? std::max(1, options_.retry.max_attempts) : 1;
  absl::Status last;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    if (attempt > 1) clock_->SleepFor(options_.retry.Backoff(attempt - 1));
    request.headers.clear();
    if (options_.auth != nullptr) {
      absl::StatusOr<std::vector<Header>> headers = options_.auth->Headers();
      if (!headers.ok()) {
        return absl::Status(
            headers.status().code(),
            absl::StrCat(reply.call.Describe(), ": credentials: ", headers.status().message()));
      }
      request.headers = *std::move(headers);
    }
    absl::StatusOr<HttpResponse> response = transport_->Send(request);
    if (!response.ok()) {
      last = response.status();
    } else {
      reply.call.http_status = response->status;
      if ((response->status >= 200 && response->status < 300) || response->status == 304) {
        reply.body = std::move(response->body);
        return reply;
      }
      std::vector<SlurmError> errors = ErrorsInBody(response->body);
      last = errors.empty() ? HttpStatusError(reply.call, response->body)
                            : SlurmErrorStatus(reply.call, errors);
      // The credentials may be stale (a rotated key): let them be renewed for next time.
      if (absl::IsUnauthenticated(last) && options_.auth != nullptr) options_.auth->Rejected();
    }
    if (!IsRetryable(last)) return last;
  }
  if (attempts > 1) {
    return absl::Status(last.code(),
                        absl::StrCat(last.message(), " (after ", attempts, " attempts)"));
  }
  return last;
}

absl::StatusOr<std::vector<PingResult>> Client::Ping() {
  absl::StatusOr<Reply> r = Call("GET", "ping/");
  if (!r.ok()) return r.status();
  return ParsePingReply(r->body, r->call);
}

absl::StatusOr<DiagInfo> Client::Diag() {
  absl::StatusOr<Reply> r = Call("GET", "diag/");
  if (!r.ok()) return r.status();
  return ParseDiagReply(r->body, r->call);
}

absl::StatusOr<NodeList> Client::GetNodes() {
  absl::StatusOr<Reply> r = Call("GET", "nodes/");
  if (!r.ok()) return r.status();
  return ParseNodesReply(std::move(r->body), r->call);
}

absl::StatusOr<NodeList> Client::GetNodesSince(absl::Time since) {
  absl::StatusOr<Reply> r =
      Call("GET", absl::StrCat("nodes/?update_time=", absl::ToUnixSeconds(since)));
  if (!r.ok()) {
    // slurmrestd 24.11 fails an update_time query when nodes changed but partitions did
    // not (HTTP 500, error -1 "Unable to query partitions"): nodes did change, so ask
    // for all of them, which is what a working server returns too.
    if (absl::StrContains(r.status().message(), "Unable to query partitions")) return GetNodes();
    return r.status();
  }
  if (r->call.http_status == 304 || r->body.empty()) {
    NodeList unchanged;
    unchanged.unchanged = true;
    unchanged.last_update = since;
    return unchanged;
  }
  return ParseNodesReply(std::move(r->body), r->call);
}

absl::StatusOr<Node> Client::GetNode(absl::string_view name) {
  absl::StatusOr<Reply> r = Call("GET", absl::StrCat("node/", Escape(name)));
  if (!r.ok()) return r.status();
  absl::StatusOr<NodeList> list = ParseNodesReply(std::move(r->body), r->call);
  if (!list.ok()) {
    // slurmrestd reports an unknown node as errors[] with error_number 0 ("Failure to
    // query node x") in an HTTP 200 reply.
    if (absl::IsFailedPrecondition(list.status()) && SlurmErrorNumber(list.status()) == 0) {
      return WithCode(list.status(), absl::StatusCode::kNotFound);
    }
    return list.status();
  }
  for (Node& node : list->nodes) {
    if (node.name == name) return std::move(node);
  }
  return absl::NotFoundError(absl::StrCat(r->call.Describe(), ": node ", name, " not in reply"));
}

absl::Status Client::UpdateNode(absl::string_view name, const NodeUpdate& update) {
  absl::StatusOr<Reply> r =
      Call("POST", absl::StrCat("node/", Escape(name)), NodeUpdateBody(update));
  if (!r.ok()) return r.status();
  return ParseEmptyReply(r->body, r->call);
}

absl::Status Client::DeleteNode(absl::string_view name) {
  absl::StatusOr<Reply> r = Call("DELETE", absl::StrCat("node/", Escape(name)));
  if (!r.ok()) return r.status();
  return ParseEmptyReply(r->body, r->call);
}

absl::StatusOr<JobList> Client::GetJobs() {
  absl::StatusOr<Reply> r = Call("GET", "jobs/");
  if (!r.ok()) return r.status();
  return ParseJobsReply(r->body, r->call);
}

absl::StatusOr<std::vector<JobStateEntry>> Client::GetJobStates() {
  absl::StatusOr<Reply> r = Call("GET", "jobs/state/");
  if (!r.ok()) return r.status();
  return ParseJobStatesReply(r->body, r->call);
}

absl::StatusOr<Job> Client::GetJob(JobId id) {
  absl::StatusOr<Reply> r = Call("GET", absl::StrCat("job/", id));
  if (!r.ok()) return r.status();
  absl::StatusOr<JobList> list = ParseJobsReply(r->body, r->call);
  if (!list.ok()) return list.status();
  for (Job& job : list->jobs) {
    if (job.id == id) return std::move(job);
  }
  return absl::NotFoundError(absl::StrCat(r->call.Describe(), ": job ", id, " not in reply"));
}

absl::StatusOr<SubmitResult> Client::SubmitJob(const JobSubmission& job) {
  if (job.external) {
    if (!job.script.empty())
      return absl::InvalidArgumentError("SubmitJob: an external job takes no script");
    if (!ServesExternalJobs(version_)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "SubmitJob: external jobs need data_parser v0.0.43 (Slurm 25.05) or newer; this "
          "client talks ",
          version_));
    }
  } else if (job.script.empty()) {
    return absl::InvalidArgumentError("SubmitJob: empty script");
  }
  absl::StatusOr<Reply> r = Call("POST", "job/submit", JobSubmitBody(job));
  if (!r.ok()) return r.status();
  absl::StatusOr<SubmitResult> submitted = ParseSubmitReply(r->body, r->call);
  if (submitted.ok()) submitted->external = job.external;
  return submitted;
}

absl::Status Client::CancelJob(JobId id, absl::string_view signal) {
  std::string path = absl::StrCat("job/", id);
  if (!signal.empty()) absl::StrAppend(&path, "?signal=", Escape(signal));
  absl::StatusOr<Reply> r = Call("DELETE", path);
  if (!r.ok()) return r.status();
  return ParseSignalReply(r->body, r->call);
}

absl::Status Client::UpdateJob(JobId id, const JobUpdate& update) {
  absl::StatusOr<Reply> r = Call("POST", absl::StrCat("job/", id), JobUpdateBody(update));
  if (!r.ok()) return r.status();
  return ParseEmptyReply(r->body, r->call);
}

absl::StatusOr<std::vector<Partition>> Client::GetPartitions() {
  absl::StatusOr<Reply> r = Call("GET", "partitions/");
  if (!r.ok()) return r.status();
  return ParsePartitionsReply(r->body, r->call);
}

absl::StatusOr<std::vector<Reservation>> Client::GetReservations() {
  absl::StatusOr<Reply> r = Call("GET", "reservations/");
  if (!r.ok()) return r.status();
  return ParseReservationsReply(r->body, r->call);
}

absl::Status Client::Reconfigure() {
  absl::StatusOr<Reply> r = Call("GET", "reconfigure/", "", Attempts::kOnce);
  if (!r.ok()) return r.status();
  return ParseEmptyReply(r->body, r->call);
}

}  // namespace tidepool::slurm::rest
