#include "syncer_service.h"

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/grpc_authz.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "drain_policy.h"
#include "feed_stream.h"
#include "force_policy.h"
#include "proto_mapping.h"
#include "submitted_job.h"

namespace tidepool::syncer {
namespace {

using common::ToGrpcStatus;
using slurm::rest::Job;
using slurm::rest::Node;

std::string Method(absl::string_view name) {
  return absl::StrCat("/", v1::SlurmSyncer::service_full_name(), "/", name);
}

grpc::Status InvalidArgument(absl::string_view message) {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(message));
}

template <typename ChangeProto, typename Item>
typename ChangeProto::Type ChangeType(const Change<Item>& change) {
  switch (change.type) {
    case Change<Item>::Type::kAdded:
      return ChangeProto::ADDED;
    case Change<Item>::Type::kModified:
      return ChangeProto::MODIFIED;
    case Change<Item>::Type::kDeleted:
      break;
  }
  return ChangeProto::DELETED;
}

void AddNodeChange(const Change<Node>& change, v1::WatchNodesResponse* out) {
  v1::NodeChange* added = out->add_changes();
  added->set_type(ChangeType<v1::NodeChange>(change));
  ToProto(change.item, added->mutable_node());
}

void AddJobChange(const Change<Job>& change, v1::WatchJobsResponse* out) {
  v1::JobChange* added = out->add_changes();
  added->set_type(ChangeType<v1::JobChange>(change));
  ToProto(change.item, added->mutable_job());
}

// The nodes named (all when none are): NotFound for a name Slurm does not know.
absl::Status SelectNodes(const std::vector<Node>& nodes, const v1::GetNodesRequest& request,
                         v1::GetNodesResponse* response) {
  const std::set<std::string> wanted(request.names().begin(), request.names().end());
  std::set<std::string> found;
  for (const Node& node : nodes) {
    if (!wanted.empty() && !wanted.contains(node.name)) continue;
    found.insert(node.name);
    ToProto(node, response->add_nodes());
  }
  for (const std::string& name : wanted) {
    if (!found.contains(name)) response->add_missing(name);
  }
  return absl::OkStatus();
}

// A list that failed says nothing about which nodes exist: NOT_FOUND would read as "not in
// Slurm" to a caller deciding whether a pod may go.
absl::Status ListFailure(const absl::Status& status) {
  if (!absl::IsNotFound(status)) return status;
  return absl::UnavailableError(absl::StrCat("listing Slurm's nodes: ", status.message()));
}

}  // namespace

SyncerService::SyncerService(SlurmGateway& slurm, NodeFeed& nodes, NodePoller& node_poller,
                             NodeDrainer& drainer, JobFeed& jobs, JobPoller& job_poller,
                             common::MethodAuthorizer authorizer,
                             std::vector<std::string> force_callers, std::string served_cluster)
    : authorizer_(std::move(authorizer)),
      served_cluster_(std::move(served_cluster)),
      force_callers_(std::move(force_callers)),
      slurm_(slurm),
      nodes_(nodes),
      node_poller_(node_poller),
      drainer_(drainer),
      jobs_(jobs),
      job_poller_(job_poller) {}

void SyncerService::EndStreams() {
  ending_streams_ = true;
  nodes_.CloseAll();
  jobs_.CloseAll();
}

grpc::Status SyncerService::Ping(grpc::ServerContext* context, const v1::PingRequest*,
                                 v1::PingResponse* response) {
  if (grpc::Status denied = authorizer_.Check(*context, Method("Ping")); !denied.ok()) {
    return denied;
  }
  absl::StatusOr<std::vector<slurm::rest::PingResult>> pings = slurm_.Ping();
  if (!pings.ok()) return ToGrpcStatus(pings.status());
  for (const slurm::rest::PingResult& ping : *pings) {
    v1::PingResponse::Controller* controller = response->add_controllers();
    controller->set_hostname(ping.hostname);
    controller->set_responding(ping.responding);
    controller->set_primary(ping.primary);
    controller->set_latency_us(ping.latency_us);
  }
  response->set_rest_version(slurm_.version());
  response->set_endpoint(slurm_.Describe());
  absl::StatusOr<std::string> user = slurm_.SlurmUser();
  if (!user.ok()) return ToGrpcStatus(user.status());
  response->set_client_user(*std::move(user));
  return grpc::Status::OK;
}

grpc::Status SyncerService::CheckCluster(const std::string& method,
                                         const std::string& requested) const {
  if (requested.empty() || served_cluster_.empty() || requested == served_cluster_) {
    return grpc::Status::OK;
  }
  // Another cluster's node names may be this one's too: acting on them here would drain,
  // or report idle, the wrong cluster's nodes.
  const std::string message =
      absl::StrCat("slurm-syncer serves SlurmCluster ", served_cluster_, ", not ", requested,
                   ": each SlurmCluster needs a Tidepool release of its own (global.slurmCluster)");
  common::LogWarn("other_cluster_refused",
                  {{"method", method}, {"served", served_cluster_}, {"requested", requested}});
  return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, message);
}

grpc::Status SyncerService::GetNodes(grpc::ServerContext* context,
                                     const v1::GetNodesRequest* request,
                                     v1::GetNodesResponse* response) {
  if (grpc::Status denied = authorizer_.Check(*context, Method("GetNodes")); !denied.ok()) {
    return denied;
  }
  if (grpc::Status other = CheckCluster("GetNodes", request->cluster()); !other.ok()) return other;
  std::vector<Node> nodes;
  absl::Time observed_at;
  if (request->fresh()) {
    observed_at = absl::Now();
    absl::StatusOr<slurm::rest::NodeList> list = slurm_.GetNodes();
    if (!list.ok()) return ToGrpcStatus(ListFailure(list.status()));
    nodes = std::move(list->nodes);
  } else {
    if (absl::Status current = nodes_.Current(); !current.ok()) {
      return ToGrpcStatus(ListFailure(current));
    }
    nodes = nodes_.Items(&observed_at);
  }
  SetProtoTime(observed_at, response->mutable_observed_at());
  return ToGrpcStatus(SelectNodes(nodes, *request, response));
}

grpc::Status SyncerService::WatchNodes(grpc::ServerContext* context, const v1::WatchNodesRequest*,
                                       grpc::ServerWriter<v1::WatchNodesResponse>* writer) {
  if (grpc::Status denied = authorizer_.Check(*context, Method("WatchNodes")); !denied.ok()) {
    return denied;
  }
  if (ending_streams_) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "slurm-syncer is stopping");
  }
  std::shared_ptr<Subscription<Node>> subscription = nodes_.Subscribe();
  return StreamFeed(context, writer, *subscription, ending_streams_, AddNodeChange,
                    [](const Node&) { return true; });
}

grpc::Status SyncerService::UpdateNode(grpc::ServerContext* context,
                                       const v1::UpdateNodeRequest* request,
                                       v1::UpdateNodeResponse* response) {
  if (grpc::Status denied = authorizer_.Check(*context, Method("UpdateNode")); !denied.ok()) {
    return denied;
  }
  if (grpc::Status other = CheckCluster("UpdateNode", request->cluster()); !other.ok()) {
    return other;
  }
  if (request->force()) {
    const std::vector<std::string> caller = common::PeerIdentities(*context);
    if (!MayForce(force_callers_, caller)) {
      common::LogWarn("force_refused",
                      {{"node", request->name()},
                       {"caller", caller.empty() ? "(no certificate)" : absl::StrJoin(caller, ",")},
                       {"fix", "list the caller in --force_callers"}});
      return {grpc::StatusCode::PERMISSION_DENIED,
              "this caller may not force a drain or undrain: a forced update overrides a "
              "person's drain, so only callers listed in slurm-syncer's --force_callers may"};
    }
  }
  absl::StatusOr<DrainOutcome> outcome =
      drainer_.Apply(FromProto(*request), context->peer(), ReadBack::kYes);
  if (!outcome.ok()) return ToGrpcStatus(outcome.status());
  response->set_changed(outcome->changed);
  ToProto(outcome->node, response->mutable_node());
  return grpc::Status::OK;
}

grpc::Status SyncerService::SubmitJob(grpc::ServerContext* context,
                                      const v1::SubmitJobRequest* request,
                                      v1::SubmitJobResponse* response) {
  if (grpc::Status denied = authorizer_.Check(*context, Method("SubmitJob")); !denied.ok()) {
    return denied;
  }
  absl::StatusOr<slurm::rest::JobSubmission> job = FromProto(request->job());
  if (!job.ok()) return InvalidArgument(job.status().message());
  absl::StatusOr<slurm::rest::SubmitResult> submitted = slurm_.SubmitJob(*job);
  if (!submitted.ok()) return ToGrpcStatus(submitted.status());
  common::LogInfo("job_submitted", {{"job_id", static_cast<int64_t>(submitted->job_id)},
                                    {"name", job->name},
                                    {"partition", job->partition},
                                    {"external", submitted->external}});
  response->set_job_id(submitted->job_id);
  response->set_external(submitted->external);
  for (const std::string& warning : submitted->warnings) response->add_warnings(warning);
  std::optional<slurm::rest::Job> as_submitted;
  if (absl::StatusOr<std::string> user = slurm_.SlurmUser(); user.ok()) {
    as_submitted = PendingAsSubmitted(*job, submitted->job_id, *std::move(user), absl::Now());
  }
  job_poller_.FollowSubmitted(submitted->job_id, std::move(as_submitted));
  return grpc::Status::OK;
}

grpc::Status SyncerService::CancelJob(grpc::ServerContext* context,
                                      const v1::CancelJobRequest* request, v1::CancelJobResponse*) {
  if (grpc::Status denied = authorizer_.Check(*context, Method("CancelJob")); !denied.ok()) {
    return denied;
  }
  if (request->job_id() == 0) return InvalidArgument("job_id: required");
  if (absl::Status s = slurm_.CancelJob(request->job_id(), request->signal()); !s.ok()) {
    // Cancelling a job that already ends has what was asked for: a caller that cancels
    // again after a race (its pod went as the job ended) is not failed for it.
    const bool already_ending =
        request->signal().empty() &&
        slurm::rest::SlurmErrorNumber(s) == slurm::rest::kSlurmErrorAlreadyDone;
    if (!already_ending) return ToGrpcStatus(s);
    common::LogInfo("job_already_ending", {{"job_id", static_cast<int64_t>(request->job_id())}});
    return grpc::Status::OK;
  }
  common::LogInfo("job_cancelled", {{"job_id", static_cast<int64_t>(request->job_id())},
                                    {"signal", request->signal()}});
  job_poller_.Wake();
  return grpc::Status::OK;
}

grpc::Status SyncerService::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                   v1::GetJobResponse* response) {
  if (grpc::Status denied = authorizer_.Check(*context, Method("GetJob")); !denied.ok()) {
    return denied;
  }
  if (request->job_id() == 0) return InvalidArgument("job_id: required");
  absl::StatusOr<Job> job = slurm_.GetJob(request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  ToProto(*job, response->mutable_job());
  return grpc::Status::OK;
}

grpc::Status SyncerService::WatchJobs(grpc::ServerContext* context,
                                      const v1::WatchJobsRequest* request,
                                      grpc::ServerWriter<v1::WatchJobsResponse>* writer) {
  if (grpc::Status denied = authorizer_.Check(*context, Method("WatchJobs")); !denied.ok()) {
    return denied;
  }
  if (ending_streams_) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "slurm-syncer is stopping");
  }
  const std::set<slurm::rest::JobId> wanted(request->job_ids().begin(), request->job_ids().end());
  std::shared_ptr<Subscription<Job>> subscription = jobs_.Subscribe();
  job_poller_.Wake();
  return StreamFeed(
      context, writer, *subscription, ending_streams_, AddJobChange,
      [&wanted](const Job& job) { return wanted.empty() || wanted.contains(job.id); });
}

grpc::Status SyncerService::Reconfigure(grpc::ServerContext* context,
                                        const v1::ReconfigureRequest* request,
                                        v1::ReconfigureResponse*) {
  if (grpc::Status denied = authorizer_.Check(*context, Method("Reconfigure")); !denied.ok()) {
    return denied;
  }
  if (grpc::Status other = CheckCluster("Reconfigure", request->cluster()); !other.ok()) {
    return other;
  }
  if (absl::Status s = slurm_.Reconfigure(); !s.ok()) {
    common::LogWarn("reconfigure_failed", {{"cause", request->cause()}, {"error", s}});
    return ToGrpcStatus(s);
  }
  common::LogInfo("reconfigured", {{"cause", request->cause()}});
  node_poller_.Wake();
  return grpc::Status::OK;
}

}  // namespace tidepool::syncer
