#pragma once

// Slurm as the controller sees it, through slurm-syncer only (api::SyncerClient): a view
// kept current by WatchNodes, and drains/undrains/fresh reads by UpdateNode and GetNodes.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "common/grpc_channel.h"
#include "plan.h"
#include "tidepool/syncer_client.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::nodeset {

// What a sync needs from Slurm (an interface, so the sync's transport is swappable).
class SlurmSource {
 public:
  virtual ~SlurmSource() = default;
  // The view of these nodes (reachability included).
  virtual SlurmView View(const std::vector<std::string>& names) = 0;
  // Drain, Undrain and Fresh name the SlurmCluster ("<namespace>/<name>") they act for: a
  // syncer serving another refuses them (FAILED_PRECONDITION).
  virtual absl::StatusOr<tidepool::v1::SlurmNode> Drain(const std::string& cluster,
                                                        const std::string& name,
                                                        const std::string& reason) = 0;
  virtual absl::StatusOr<tidepool::v1::SlurmNode> Undrain(const std::string& cluster,
                                                          const std::string& name,
                                                          const std::string& if_reason) = 0;
  // Slurm's state of one node now (not the watch's); nullopt only when a list Slurm gave
  // lacks it. Any failure (NOT_FOUND too) is an error: no list, no proof of absence.
  virtual absl::StatusOr<std::optional<tidepool::v1::SlurmNode>> Fresh(const std::string& cluster,
                                                                       const std::string& name) = 0;
};

// Called with the Slurm node names that changed, or all=true when every node may have
// (a new snapshot, Slurm or the syncer lost or found again).
using SlurmChangeHandler = std::function<void(const std::vector<std::string>& names, bool all)>;

class SyncerSlurmSource : public SlurmSource {
 public:
  // `address` host:port of slurm-syncer's gRPC server ("" = none: always unreachable),
  // reached with `channel` (TLS or not). `clock` outlives the source.
  SyncerSlurmSource(std::string address, const common::ChannelOptions& channel,
                    absl::Duration call_timeout, common::Clock* clock,
                    SlurmChangeHandler on_change);
  // Over a given client (null: always unreachable); `address` only names it in messages.
  SyncerSlurmSource(std::unique_ptr<api::SyncerClient> syncer, std::string address,
                    common::Clock* clock, SlurmChangeHandler on_change);
  ~SyncerSlurmSource() override { Stop(); }
  SyncerSlurmSource(const SyncerSlurmSource&) = delete;
  SyncerSlurmSource& operator=(const SyncerSlurmSource&) = delete;

  // Watches on a thread of its own, reconnecting with backoff.
  void Start();
  void Stop();

  SlurmView View(const std::vector<std::string>& names) override;
  absl::StatusOr<tidepool::v1::SlurmNode> Drain(const std::string& cluster, const std::string& name,
                                                const std::string& reason) override;
  absl::StatusOr<tidepool::v1::SlurmNode> Undrain(const std::string& cluster,
                                                  const std::string& name,
                                                  const std::string& if_reason) override;
  absl::StatusOr<std::optional<tidepool::v1::SlurmNode>> Fresh(const std::string& cluster,
                                                               const std::string& name) override;

  bool reachable();

 private:
  void WatchLoop();
  // One stream until it ends; returns how it ended.
  std::string WatchOnce();
  void Apply(const tidepool::v1::WatchNodesResponse& message);
  void SetUnreachable(std::string reason);
  absl::StatusOr<tidepool::v1::SlurmNode> Update(const tidepool::v1::UpdateNodeRequest& request);
  bool WaitUnlessStopped(absl::Duration duration);
  // Grows whenever the watch brings `name` (or a new snapshot): an UpdateNode reply is
  // kept only when it did not grow during the call.
  uint64_t WatchVersionLocked(const std::string& name) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::string address_;
  common::Clock* const clock_;
  const SlurmChangeHandler on_change_;
  std::unique_ptr<api::SyncerClient> syncer_;

  absl::Mutex mutex_;
  std::map<std::string, tidepool::v1::SlurmNode> nodes_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, tidepool::v1::SlurmNode> snapshot_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, uint64_t> watch_versions_ ABSL_GUARDED_BY(mutex_);
  uint64_t watch_epoch_ ABSL_GUARDED_BY(mutex_) = 0;
  bool reachable_ ABSL_GUARDED_BY(mutex_) = false;
  std::string unreachable_reason_ ABSL_GUARDED_BY(mutex_);
  api::NodeWatchStream* stream_ ABSL_GUARDED_BY(mutex_) = nullptr;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

}  // namespace tidepool::nodeset
