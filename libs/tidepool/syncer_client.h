#pragma once

// What Tidepool's controllers call on slurm-syncer, the one door to Slurm: the
// nodeset-controller watches nodes, drains, undrains and reads a node fresh; the
// cluster-controller asks for a reconfigure. An interface, so the callers' policy does not
// depend on the transport (tests give a fake), with the gRPC implementation beside it.

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "tidepool/v1/syncer.grpc.pb.h"

namespace tidepool::api {

// One WatchNodes stream: a snapshot, then changes, until it ends.
class NodeWatchStream {
 public:
  virtual ~NodeWatchStream() = default;
  // The next message; false once the stream ended (Finish then says how).
  virtual bool Read(tidepool::v1::WatchNodesResponse& message) = 0;
  virtual absl::Status Finish() = 0;
  // Ends the stream from another thread: a blocked Read returns false.
  virtual void Cancel() = 0;
};

class SyncerClient {
 public:
  virtual ~SyncerClient() = default;
  virtual std::unique_ptr<NodeWatchStream> WatchNodes() = 0;
  virtual absl::StatusOr<tidepool::v1::UpdateNodeResponse> UpdateNode(
      const tidepool::v1::UpdateNodeRequest& request) = 0;
  // NotFound when Slurm has none of the nodes asked for by name.
  virtual absl::StatusOr<tidepool::v1::GetNodesResponse> GetNodes(
      const tidepool::v1::GetNodesRequest& request) = 0;
  virtual absl::Status Reconfigure(const tidepool::v1::ReconfigureRequest& request) = 0;
};

// Over gRPC (a channel from common::MakeChannel). Each unary call gets a deadline
// `call_timeout` after `clock`'s now; the watch has none. `clock` outlives the client.
class GrpcSyncerClient : public SyncerClient {
 public:
  GrpcSyncerClient(std::shared_ptr<grpc::Channel> channel, absl::Duration call_timeout,
                   common::Clock* clock);

  std::unique_ptr<NodeWatchStream> WatchNodes() override;
  absl::StatusOr<tidepool::v1::UpdateNodeResponse> UpdateNode(
      const tidepool::v1::UpdateNodeRequest& request) override;
  absl::StatusOr<tidepool::v1::GetNodesResponse> GetNodes(
      const tidepool::v1::GetNodesRequest& request) override;
  absl::Status Reconfigure(const tidepool::v1::ReconfigureRequest& request) override;

 private:
  std::unique_ptr<grpc::ClientContext> CallContext() const;

  std::unique_ptr<tidepool::v1::SlurmSyncer::Stub> stub_;
  const absl::Duration call_timeout_;
  common::Clock* const clock_;
};

}  // namespace tidepool::api
