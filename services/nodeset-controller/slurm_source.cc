#include "slurm_source.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/grpc_channel.h"
#include "common/log.h"

namespace tidepool::nodeset {
namespace {

using tidepool::v1::NodeChange;
using tidepool::v1::SlurmNode;
using tidepool::v1::UpdateNodeRequest;
using tidepool::v1::WatchNodesResponse;

constexpr absl::Duration kFirstBackoff = absl::Milliseconds(500);
constexpr absl::Duration kMaxBackoff = absl::Seconds(10);

}  // namespace

namespace {

// A gRPC client for `address`, or null (always unreachable) without one or when no channel
// can be opened to it (logged: the address is the operator's to fix).
std::unique_ptr<api::SyncerClient> GrpcClientFor(const std::string& address,
                                                 const common::ChannelOptions& options,
                                                 absl::Duration call_timeout,
                                                 common::Clock* clock) {
  if (address.empty()) return nullptr;
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = common::MakeChannel(address, options);
  if (!channel.ok()) {
    common::LogError("syncer_channel_failed", {{"address", address}, {"error", channel.status()}});
    return nullptr;
  }
  return std::make_unique<api::GrpcSyncerClient>(*std::move(channel), call_timeout, clock);
}

absl::Status NoClient(const std::string& address) {
  return absl::UnavailableError(address.empty()
                                    ? "no --syncer_address"
                                    : absl::StrCat("no channel to slurm-syncer ", address));
}

}  // namespace

SyncerSlurmSource::SyncerSlurmSource(std::string address, const common::ChannelOptions& channel,
                                     absl::Duration call_timeout, common::Clock* clock,
                                     SlurmChangeHandler on_change)
    : SyncerSlurmSource(GrpcClientFor(address, channel, call_timeout, clock), address, clock,
                        std::move(on_change)) {}

SyncerSlurmSource::SyncerSlurmSource(std::unique_ptr<api::SyncerClient> syncer, std::string address,
                                     common::Clock* clock, SlurmChangeHandler on_change)
    : address_(std::move(address)),
      clock_(clock),
      on_change_(std::move(on_change)),
      syncer_(std::move(syncer)) {
  unreachable_reason_ = syncer_ == nullptr
                            ? std::string(NoClient(address_).message())
                            : absl::StrCat("no snapshot from slurm-syncer ", address_, " yet");
}

void SyncerSlurmSource::Start() {
  if (syncer_ == nullptr || thread_.joinable()) return;
  thread_ = std::thread([this] { WatchLoop(); });
}

void SyncerSlurmSource::Stop() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    if (stream_ != nullptr) stream_->Cancel();
  }
  if (thread_.joinable()) thread_.join();
}

bool SyncerSlurmSource::reachable() {
  absl::MutexLock lock(&mutex_);
  return reachable_;
}

SlurmView SyncerSlurmSource::View(const std::vector<std::string>& names) {
  absl::MutexLock lock(&mutex_);
  SlurmView view;
  view.reachable = reachable_;
  view.unreachable_reason = unreachable_reason_;
  for (const std::string& name : names) {
    if (auto it = nodes_.find(name); it != nodes_.end()) view.nodes.emplace(name, it->second);
  }
  return view;
}

bool SyncerSlurmSource::WaitUnlessStopped(absl::Duration duration) {
  absl::MutexLock lock(&mutex_);
  auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stopping_; };
  mutex_.AwaitWithTimeout(absl::Condition(&stopping), duration);
  return !stopping_;
}

void SyncerSlurmSource::WatchLoop() {
  absl::Duration backoff = kFirstBackoff;
  while (true) {
    const absl::Time started = clock_->Now();
    const std::string ended = WatchOnce();
    SetUnreachable(absl::StrCat("slurm-syncer ", address_, ": ", ended));
    // A stream that lasted a while was healthy: try again soon.
    if (clock_->Now() - started > kMaxBackoff) backoff = kFirstBackoff;
    if (!WaitUnlessStopped(backoff)) return;
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
}

std::string SyncerSlurmSource::WatchOnce() {
  std::unique_ptr<api::NodeWatchStream> stream = syncer_->WatchNodes();
  if (stream == nullptr) return "no watch stream";
  bool stopped = false;
  {
    absl::MutexLock lock(&mutex_);
    stopped = stopping_;
    if (!stopped) {
      stream_ = stream.get();
      snapshot_.clear();
    }
  }
  if (stopped) {
    // Stop came between opening the stream and registering it: end the call cleanly.
    stream->Cancel();
    WatchNodesResponse ignored;
    while (stream->Read(ignored)) {
    }
    (void)stream->Finish();
    return "stopped";
  }
  WatchNodesResponse message;
  while (stream->Read(message)) Apply(message);
  const absl::Status status = stream->Finish();
  absl::MutexLock lock(&mutex_);
  stream_ = nullptr;
  return status.ok() ? "watch ended" : std::string(status.message());
}

void SyncerSlurmSource::Apply(const WatchNodesResponse& message) {
  std::vector<std::string> changed;
  bool all = false;
  {
    absl::MutexLock lock(&mutex_);
    switch (message.kind()) {
      case WatchNodesResponse::SNAPSHOT:
        for (const NodeChange& change : message.changes()) {
          snapshot_[change.node().name()] = change.node();
        }
        if (!message.snapshot_complete()) return;
        nodes_ = std::move(snapshot_);
        snapshot_.clear();
        ++watch_epoch_;
        reachable_ = true;
        all = true;
        break;
      case WatchNodesResponse::CHANGES:
        for (const NodeChange& change : message.changes()) {
          if (change.type() == NodeChange::DELETED) {
            nodes_.erase(change.node().name());
          } else {
            nodes_[change.node().name()] = change.node();
          }
          ++watch_versions_[change.node().name()];
          changed.push_back(change.node().name());
        }
        all = !reachable_;
        reachable_ = true;
        break;
      case WatchNodesResponse::SLURM_UNAVAILABLE:
        all = reachable_;
        reachable_ = false;
        unreachable_reason_ = absl::StrCat("Slurm unreachable: ", message.unavailable_reason());
        break;
      default:
        return;
    }
  }
  if (all || !changed.empty()) on_change_(changed, all);
}

void SyncerSlurmSource::SetUnreachable(std::string reason) {
  bool was_reachable = false;
  {
    absl::MutexLock lock(&mutex_);
    was_reachable = reachable_;
    reachable_ = false;
    unreachable_reason_ = std::move(reason);
  }
  if (was_reachable) {
    common::LogWarn("slurm_syncer_unreachable", {{"address", address_}});
    on_change_({}, true);
  }
}

uint64_t SyncerSlurmSource::WatchVersionLocked(const std::string& name) const {
  auto it = watch_versions_.find(name);
  return watch_epoch_ + (it != watch_versions_.end() ? it->second : 0);
}

absl::StatusOr<SlurmNode> SyncerSlurmSource::Update(const UpdateNodeRequest& request) {
  if (syncer_ == nullptr) return NoClient(address_);
  uint64_t version_before = 0;
  {
    absl::MutexLock lock(&mutex_);
    version_before = WatchVersionLocked(request.name());
  }
  absl::StatusOr<tidepool::v1::UpdateNodeResponse> response = syncer_->UpdateNode(request);
  if (!response.ok()) return response.status();
  // The next sync sees the new state without waiting for the watch, unless the watch
  // brought this node meanwhile: its state may be newer than the reply, and a stale
  // reply written over it would stay until the node's next change in Slurm.
  absl::MutexLock lock(&mutex_);
  if (WatchVersionLocked(request.name()) == version_before) {
    nodes_[response->node().name()] = response->node();
  }
  return response->node();
}

absl::StatusOr<SlurmNode> SyncerSlurmSource::Drain(const std::string& cluster,
                                                   const std::string& name,
                                                   const std::string& reason) {
  UpdateNodeRequest request;
  request.set_cluster(cluster);
  request.set_name(name);
  request.set_action(UpdateNodeRequest::DRAIN);
  request.set_reason(reason);
  return Update(request);
}

absl::StatusOr<SlurmNode> SyncerSlurmSource::Undrain(const std::string& cluster,
                                                     const std::string& name,
                                                     const std::string& if_reason) {
  UpdateNodeRequest request;
  request.set_cluster(cluster);
  request.set_name(name);
  request.set_action(UpdateNodeRequest::UNDRAIN);
  request.set_if_reason(if_reason);
  return Update(request);
}

absl::StatusOr<std::optional<SlurmNode>> SyncerSlurmSource::Fresh(const std::string& cluster,
                                                                  const std::string& name) {
  if (syncer_ == nullptr) return NoClient(address_);
  tidepool::v1::GetNodesRequest request;
  request.set_cluster(cluster);
  request.set_fresh(true);
  request.add_names(name);
  absl::StatusOr<tidepool::v1::GetNodesResponse> response = syncer_->GetNodes(request);
  if (!response.ok()) return response.status();  // NOT_FOUND included: no list, no proof
  for (const SlurmNode& node : response->nodes()) {
    if (node.name() == name) return node;
  }
  for (const std::string& missing : response->missing()) {
    if (missing == name) return std::nullopt;
  }
  return absl::InternalError(absl::StrCat("slurm-syncer's reply neither lists Slurm node ", name,
                                          " nor reports it missing (an older slurm-syncer?)"));
}

}  // namespace tidepool::nodeset
