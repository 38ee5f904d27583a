#pragma once

// The job half of slurm-syncer's API, as the pod-scheduler uses it: submit, cancel and
// watch. An interface so the scheduler's sync does not depend on the transport.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "tidepool/v1/syncer.grpc.pb.h"

namespace tidepool::podsched {

class JobWatchStream {
 public:
  virtual ~JobWatchStream() = default;
  virtual bool Read(tidepool::v1::WatchJobsResponse& message) = 0;
  virtual absl::Status Finish() = 0;
  virtual void Cancel() = 0;  // from another thread: a blocked Read returns false
};

class SyncerJobs {
 public:
  virtual ~SyncerJobs() = default;
  virtual absl::StatusOr<uint32_t> Submit(const tidepool::v1::JobSpec& spec) = 0;
  virtual absl::Status Cancel(uint32_t job_id) = 0;
  virtual std::unique_ptr<JobWatchStream> Watch() = 0;
  // The Slurm user the syncer's jobs belong to (its Ping's client_user).
  virtual absl::StatusOr<std::string> JobUser() = 0;
};

class GrpcSyncerJobs : public SyncerJobs {
 public:
  GrpcSyncerJobs(std::shared_ptr<grpc::Channel> channel, absl::Duration call_timeout);
  absl::StatusOr<uint32_t> Submit(const tidepool::v1::JobSpec& spec) override;
  absl::Status Cancel(uint32_t job_id) override;
  std::unique_ptr<JobWatchStream> Watch() override;
  absl::StatusOr<std::string> JobUser() override;

 private:
  std::unique_ptr<grpc::ClientContext> CallContext() const;

  std::unique_ptr<tidepool::v1::SlurmSyncer::Stub> stub_;
  const absl::Duration call_timeout_;
};

}  // namespace tidepool::podsched
