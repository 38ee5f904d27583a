#include "syncer_jobs.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/grpc_status.h"

namespace tidepool::podsched {
namespace {

class GrpcJobWatchStream : public JobWatchStream {
 public:
  explicit GrpcJobWatchStream(tidepool::v1::SlurmSyncer::Stub& stub)
      : reader_(stub.WatchJobs(&context_, tidepool::v1::WatchJobsRequest())) {}

  bool Read(tidepool::v1::WatchJobsResponse& message) override { return reader_->Read(&message); }
  absl::Status Finish() override {
    return common::FromGrpcStatus(reader_->Finish(), "slurm-syncer WatchJobs");
  }
  void Cancel() override { context_.TryCancel(); }

 private:
  grpc::ClientContext context_;  // before reader_, which uses it
  std::unique_ptr<grpc::ClientReader<tidepool::v1::WatchJobsResponse>> reader_;
};

}  // namespace

GrpcSyncerJobs::GrpcSyncerJobs(std::shared_ptr<grpc::Channel> channel, absl::Duration call_timeout)
    : stub_(tidepool::v1::SlurmSyncer::NewStub(std::move(channel))), call_timeout_(call_timeout) {}

std::unique_ptr<grpc::ClientContext> GrpcSyncerJobs::CallContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(absl::Now() + call_timeout_));
  return context;
}

absl::StatusOr<uint32_t> GrpcSyncerJobs::Submit(const tidepool::v1::JobSpec& spec) {
  tidepool::v1::SubmitJobRequest request;
  *request.mutable_job() = spec;
  tidepool::v1::SubmitJobResponse response;
  const grpc::Status status = stub_->SubmitJob(CallContext().get(), request, &response);
  if (!status.ok()) {
    return common::FromGrpcStatus(status, absl::StrCat("SubmitJob ", spec.name()));
  }
  return response.job_id();
}

absl::Status GrpcSyncerJobs::Cancel(uint32_t job_id) {
  tidepool::v1::CancelJobRequest request;
  request.set_job_id(job_id);
  tidepool::v1::CancelJobResponse response;
  return common::FromGrpcStatus(stub_->CancelJob(CallContext().get(), request, &response),
                                absl::StrCat("CancelJob ", job_id));
}

absl::StatusOr<std::string> GrpcSyncerJobs::JobUser() {
  tidepool::v1::PingResponse response;
  const grpc::Status status =
      stub_->Ping(CallContext().get(), tidepool::v1::PingRequest(), &response);
  if (!status.ok()) return common::FromGrpcStatus(status, "slurm-syncer Ping");
  if (response.client_user().empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "slurm-syncer does not report the Slurm user its jobs belong to (", response.endpoint(),
        "): without it a job of anyone could pass for a placeholder job"));
  }
  return response.client_user();
}

std::unique_ptr<JobWatchStream> GrpcSyncerJobs::Watch() {
  return std::make_unique<GrpcJobWatchStream>(*stub_);
}

}  // namespace tidepool::podsched
