#include "tidepool/syncer_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/grpc_status.h"

namespace tidepool::api {
namespace {

class GrpcNodeWatchStream : public NodeWatchStream {
 public:
  explicit GrpcNodeWatchStream(tidepool::v1::SlurmSyncer::Stub& stub)
      : reader_(stub.WatchNodes(&context_, tidepool::v1::WatchNodesRequest())) {}

  bool Read(tidepool::v1::WatchNodesResponse& message) override { return reader_->Read(&message); }
  // The server's message as it is: the watcher shows it as why Slurm is unreachable.
  absl::Status Finish() override {
    const grpc::Status status = reader_->Finish();
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
  }
  // grpc::ClientContext::TryCancel may be called from any thread.
  void Cancel() override { context_.TryCancel(); }

 private:
  grpc::ClientContext context_;  // before reader_, which uses it
  std::unique_ptr<grpc::ClientReader<tidepool::v1::WatchNodesResponse>> reader_;
};

}  // namespace

GrpcSyncerClient::GrpcSyncerClient(std::shared_ptr<grpc::Channel> channel,
                                   absl::Duration call_timeout, common::Clock* clock)
    : stub_(tidepool::v1::SlurmSyncer::NewStub(std::move(channel))),
      call_timeout_(call_timeout),
      clock_(clock) {}

std::unique_ptr<grpc::ClientContext> GrpcSyncerClient::CallContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(clock_->Now() + call_timeout_));
  return context;
}

std::unique_ptr<NodeWatchStream> GrpcSyncerClient::WatchNodes() {
  return std::make_unique<GrpcNodeWatchStream>(*stub_);
}

absl::StatusOr<tidepool::v1::UpdateNodeResponse> GrpcSyncerClient::UpdateNode(
    const tidepool::v1::UpdateNodeRequest& request) {
  tidepool::v1::UpdateNodeResponse response;
  const grpc::Status status = stub_->UpdateNode(CallContext().get(), request, &response);
  if (!status.ok()) {
    return common::FromGrpcStatus(status, absl::StrCat("UpdateNode ", request.name()));
  }
  return response;
}

absl::StatusOr<tidepool::v1::GetNodesResponse> GrpcSyncerClient::GetNodes(
    const tidepool::v1::GetNodesRequest& request) {
  tidepool::v1::GetNodesResponse response;
  const grpc::Status status = stub_->GetNodes(CallContext().get(), request, &response);
  if (!status.ok()) {
    return common::FromGrpcStatus(status,
                                  absl::StrCat("GetNodes ", absl::StrJoin(request.names(), ",")));
  }
  return response;
}

absl::Status GrpcSyncerClient::Reconfigure(const tidepool::v1::ReconfigureRequest& request) {
  tidepool::v1::ReconfigureResponse response;
  return common::FromGrpcStatus(stub_->Reconfigure(CallContext().get(), request, &response),
                                "slurm-syncer Reconfigure");
}

}  // namespace tidepool::api
