#include "slurm_gateway.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "common/metrics.h"

namespace tidepool::syncer {
namespace {

constexpr char kService[] = "slurm-syncer";
using slurm::rest::Client;

}  // namespace

SlurmGateway::SlurmGateway(slurm::rest::ClientOptions options, prometheus::Registry& registry,
                           absl::Duration reconnect_interval, RestEndpointResolver resolve_endpoint)
    : options_(std::move(options)),
      reconnect_interval_(reconnect_interval),
      resolve_endpoint_(std::move(resolve_endpoint)),
      requests_(prometheus::BuildCounter()
                    .Name(common::MetricName(kService, "rest_requests_total"))
                    .Help("slurmrestd calls by endpoint, method and outcome (a status code)")
                    .Register(registry)),
      durations_(prometheus::BuildHistogram()
                     .Name(common::MetricName(kService, "rest_request_duration_seconds"))
                     .Help("slurmrestd call latency, retries included")
                     .Register(registry)),
      last_failure_(absl::UnavailableError("not connected yet")) {}

absl::Status SlurmGateway::Connect() { return ConnectedClient().status(); }

std::string SlurmGateway::Describe() {
  absl::MutexLock lock(&mutex_);
  if (client_ != nullptr) return client_->Describe();
  if (resolve_endpoint_ != nullptr) return "slurmrestd (address read when connecting)";
  return absl::StrCat("slurmrestd ",
                      options_.unix_socket.empty() ? options_.base_url : options_.unix_socket,
                      " (not connected)");
}

absl::StatusOr<std::string> SlurmGateway::SlurmUser() {
  if (options_.auth != nullptr) return options_.auth->SlurmUser();
  return slurm::rest::NewNoAuthenticator()->SlurmUser();
}

std::string SlurmGateway::version() {
  absl::MutexLock lock(&mutex_);
  return client_ != nullptr ? client_->version() : "";
}

absl::StatusOr<std::shared_ptr<Client>> SlurmGateway::ConnectedClient() {
  absl::MutexLock lock(&mutex_);
  if (client_ != nullptr) return client_;
  const absl::Time now = absl::Now();
  if (now - last_attempt_ < reconnect_interval_) return last_failure_;
  last_attempt_ = now;
  slurm::rest::ClientOptions options = options_;
  if (resolve_endpoint_ != nullptr) {
    absl::StatusOr<RestEndpoint> read = resolve_endpoint_();
    absl::StatusOr<RestEndpoint> endpoint = EndpointToUse(read, last_endpoint_);
    if (!read.ok() && endpoint.ok()) {
      common::LogWarn("slurmrestd_endpoint_unread",
                      {{"error", read.status()}, {"action", "connecting as last time"}});
    }
    if (!endpoint.ok()) {
      last_failure_ =
          absl::Status(endpoint.status().code(),
                       absl::StrCat("cannot find slurmrestd: ", endpoint.status().message()));
      return last_failure_;
    }
    last_endpoint_ = *endpoint;
    options.base_url = std::move(endpoint->base_url);
    options.ca_pem = std::move(endpoint->ca_pem);
    options.connect_to = std::move(endpoint->connect_to);
  }
  options.on_version = [](absl::string_view chosen, const std::vector<std::string>& served) {
    common::LogInfo("slurmrestd_version_chosen",
                    {{"version", chosen}, {"served", absl::StrJoin(served, ",")}});
  };
  absl::StatusOr<std::unique_ptr<Client>> client = Client::Connect(std::move(options));
  Record({"GET", "openapi"}, client.status(), absl::Now() - now);
  if (!client.ok()) {
    last_failure_ =
        absl::Status(client.status().code(),
                     absl::StrCat("cannot connect to slurmrestd: ", client.status().message()));
    return last_failure_;
  }
  client_ = *std::move(client);
  common::LogInfo("slurmrestd_connected", {{"endpoint", client_->Describe()}});
  return client_;
}

void SlurmGateway::ForgetUnreachable(const std::shared_ptr<Client>& client,
                                     const absl::Status& status) {
  if (resolve_endpoint_ == nullptr || !absl::IsUnavailable(status)) return;
  absl::MutexLock lock(&mutex_);
  if (client_ != client) return;  // another call already forgot it
  common::LogWarn(
      "slurmrestd_address_forgotten",
      {{"endpoint", client_->Describe()},
       {"error", status},
       {"action", "reading slurmrestd's Service and TLS Secret again at the next call"}});
  client_.reset();
  last_failure_ = status;
}

void SlurmGateway::Record(Endpoint endpoint, const absl::Status& status, absl::Duration took) {
  requests_
      .Add({{"endpoint", endpoint.path},
            {"method", endpoint.method},
            {"outcome", common::StatusCodeLabel(status.code())}})
      .Increment();
  durations_
      .Add({{"endpoint", endpoint.path}, {"method", endpoint.method}},
           prometheus::Histogram::BucketBoundaries{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                   0.25, 0.5, 1, 2.5, 5, 10, 30})
      .Observe(absl::ToDoubleSeconds(took));
}

template <typename Call>
auto SlurmGateway::Observe(Endpoint endpoint, Call call)
    -> decltype(call(std::declval<Client&>())) {
  absl::StatusOr<std::shared_ptr<Client>> client = ConnectedClient();
  if (!client.ok()) return client.status();
  const absl::Time start = absl::Now();
  auto result = call(**client);
  absl::Status status;
  if constexpr (std::is_same_v<decltype(result), absl::Status>) {
    status = result;
  } else {
    status = result.status();
  }
  Record(endpoint, status, absl::Now() - start);
  ForgetUnreachable(*client, status);
  return result;
}

absl::StatusOr<std::vector<slurm::rest::PingResult>> SlurmGateway::Ping() {
  return Observe({"GET", "ping"}, [](Client& c) { return c.Ping(); });
}

absl::StatusOr<slurm::rest::NodeList> SlurmGateway::GetNodes() {
  return Observe({"GET", "nodes"}, [](Client& c) { return c.GetNodes(); });
}

absl::StatusOr<slurm::rest::NodeList> SlurmGateway::GetNodesSince(absl::Time since) {
  return Observe({"GET", "nodes"}, [since](Client& c) { return c.GetNodesSince(since); });
}

absl::StatusOr<slurm::rest::Node> SlurmGateway::GetNode(absl::string_view name) {
  return Observe({"GET", "node"}, [name](Client& c) { return c.GetNode(name); });
}

absl::Status SlurmGateway::UpdateNode(absl::string_view name,
                                      const slurm::rest::NodeUpdate& update) {
  return Observe({"POST", "node"}, [&](Client& c) { return c.UpdateNode(name, update); });
}

absl::StatusOr<slurm::rest::JobList> SlurmGateway::GetJobs() {
  return Observe({"GET", "jobs"}, [](Client& c) { return c.GetJobs(); });
}

absl::StatusOr<std::vector<slurm::rest::JobStateEntry>> SlurmGateway::GetJobStates() {
  return Observe({"GET", "jobs/state"}, [](Client& c) { return c.GetJobStates(); });
}

absl::StatusOr<slurm::rest::Job> SlurmGateway::GetJob(slurm::rest::JobId id) {
  return Observe({"GET", "job"}, [id](Client& c) { return c.GetJob(id); });
}

absl::StatusOr<slurm::rest::SubmitResult> SlurmGateway::SubmitJob(
    const slurm::rest::JobSubmission& job) {
  return Observe({"POST", "job/submit"}, [&](Client& c) {
    if (!job.external) return c.SubmitJob(job);
    slurm::rest::JobSubmission as_sent = job;
    if (slurm::rest::ServesExternalJobs(c.version())) {
      as_sent.script.clear();
    } else {
      as_sent.external = false;  // the script holds the allocation instead
    }
    return c.SubmitJob(as_sent);
  });
}

absl::Status SlurmGateway::CancelJob(slurm::rest::JobId id, absl::string_view signal) {
  return Observe({"DELETE", "job"}, [&](Client& c) { return c.CancelJob(id, signal); });
}

absl::Status SlurmGateway::Reconfigure() {
  return Observe({"GET", "reconfigure"}, [](Client& c) { return c.Reconfigure(); });
}

absl::StatusOr<slurm::rest::DiagInfo> SlurmGateway::Diag() {
  return Observe({"GET", "diag"}, [](Client& c) { return c.Diag(); });
}

}  // namespace tidepool::syncer
