#pragma once

// tidepool.v1.SlurmSyncer over gRPC: Slurm state and job operations for the other
// services. Reads come from the shared poll loops' feeds; writes go through the gateway
// and wake the node poll so watchers see their effect within one request.

#include <atomic>
#include <string>
#include <vector>

#include "common/grpc_authz.h"
#include "job_poller.h"
#include "node_drainer.h"
#include "node_poller.h"
#include "slurm_gateway.h"
#include "tidepool/v1/syncer.grpc.pb.h"

namespace tidepool::syncer {

class SyncerService final : public v1::SlurmSyncer::Service {
 public:
  SyncerService(SlurmGateway& slurm, NodeFeed& nodes, NodePoller& node_poller, NodeDrainer& drainer,
                JobFeed& jobs, JobPoller& job_poller, common::MethodAuthorizer authorizer,
                std::vector<std::string> force_callers, std::string served_cluster = "");

  // Ends every watch stream (UNAVAILABLE: the syncer is stopping) and refuses new ones.
  void EndStreams();

  grpc::Status Ping(grpc::ServerContext* context, const v1::PingRequest* request,
                    v1::PingResponse* response) override;
  grpc::Status GetNodes(grpc::ServerContext* context, const v1::GetNodesRequest* request,
                        v1::GetNodesResponse* response) override;
  grpc::Status WatchNodes(grpc::ServerContext* context, const v1::WatchNodesRequest* request,
                          grpc::ServerWriter<v1::WatchNodesResponse>* writer) override;
  grpc::Status UpdateNode(grpc::ServerContext* context, const v1::UpdateNodeRequest* request,
                          v1::UpdateNodeResponse* response) override;
  grpc::Status SubmitJob(grpc::ServerContext* context, const v1::SubmitJobRequest* request,
                         v1::SubmitJobResponse* response) override;
  grpc::Status CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                         v1::CancelJobResponse* response) override;
  grpc::Status GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                      v1::GetJobResponse* response) override;
  grpc::Status WatchJobs(grpc::ServerContext* context, const v1::WatchJobsRequest* request,
                         grpc::ServerWriter<v1::WatchJobsResponse>* writer) override;
  grpc::Status Reconfigure(grpc::ServerContext* context, const v1::ReconfigureRequest* request,
                           v1::ReconfigureResponse* response) override;

 private:
  // FAILED_PRECONDITION when a request names a cluster other than the one served.
  grpc::Status CheckCluster(const std::string& method, const std::string& requested) const;

  const common::MethodAuthorizer authorizer_;
  // --slurm_cluster ("<namespace>/<name>"); "" when slurmrestd was given directly.
  const std::string served_cluster_;
  const std::vector<std::string> force_callers_;
  SlurmGateway& slurm_;
  NodeFeed& nodes_;
  NodePoller& node_poller_;
  NodeDrainer& drainer_;
  JobFeed& jobs_;
  JobPoller& job_poller_;
  std::atomic<bool> ending_streams_{false};
};

}  // namespace tidepool::syncer
