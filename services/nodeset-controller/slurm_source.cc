#include "slurm_source.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/grpc_channel.h"
#include "common/grpc_status.h"
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

SyncerClient::SyncerClient(std::string address, absl::Duration call_timeout, common::Clock* clock,
                           SlurmChangeHandler on_change)
    : address_(std::move(address)),
      call_timeout_(call_timeout),
      clock_(clock),
      on_change_(std::move(on_change)) {
  if (address_.empty()) {
    unreachable_reason_ = "no --syncer_address";
    return;
  }
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel = common::MakeChannel(address_);
  if (!channel.ok()) {
    unreachable_reason_ = absl::StrCat("slurm-syncer ", address_, ": ", channel.status().message());
    return;
  }
  stub_ = tidepool::v1::SlurmSyncer::NewStub(*std::move(channel));
  unreachable_reason_ = absl::StrCat("no snapshot from slurm-syncer ", address_, " yet");
}

void SyncerClient::Start() {
  if (stub_ == nullptr || thread_.joinable()) return;
  thread_ = std::thread([this] { WatchLoop(); });
}

void SyncerClient::Stop() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
    if (stream_context_ != nullptr) stream_context_->TryCancel();
  }
  if (thread_.joinable()) thread_.join();
}

bool SyncerClient::reachable() {
  absl::MutexLock lock(&mutex_);
  return reachable_;
}

SlurmView SyncerClient::View(const std::vector<std::string>& names) {
  absl::MutexLock lock(&mutex_);
  SlurmView view;
  view.reachable = reachable_;
  view.unreachable_reason = unreachable_reason_;
  for (const std::string& name : names) {
    if (auto it = nodes_.find(name); it != nodes_.end()) view.nodes.emplace(name, it->second);
  }
  return view;
}

bool SyncerClient::WaitUnlessStopped(absl::Duration duration) {
  absl::MutexLock lock(&mutex_);
  auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stopping_; };
  mutex_.AwaitWithTimeout(absl::Condition(&stopping), duration);
  return !stopping_;
}

void SyncerClient::WatchLoop() {
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

std::string SyncerClient::WatchOnce() {
  grpc::ClientContext context;
  {
    absl::MutexLock lock(&mutex_);
    if (stopping_) return "stopped";
    stream_context_ = &context;
    snapshot_.clear();
  }
  std::unique_ptr<grpc::ClientReader<WatchNodesResponse>> reader =
      stub_->WatchNodes(&context, tidepool::v1::WatchNodesRequest());
  WatchNodesResponse message;
  while (reader->Read(&message)) Apply(message);
  const grpc::Status status = reader->Finish();
  absl::MutexLock lock(&mutex_);
  stream_context_ = nullptr;
  return status.ok() ? "watch ended" : status.error_message();
}

void SyncerClient::Apply(const WatchNodesResponse& message) {
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

void SyncerClient::SetUnreachable(std::string reason) {
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

std::unique_ptr<grpc::ClientContext> SyncerClient::CallContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(absl::ToChronoTime(clock_->Now() + call_timeout_));
  return context;
}

uint64_t SyncerClient::WatchVersionLocked(const std::string& name) const {
  auto it = watch_versions_.find(name);
  return watch_epoch_ + (it != watch_versions_.end() ? it->second : 0);
}

absl::StatusOr<SlurmNode> SyncerClient::Update(const UpdateNodeRequest& request) {
  if (stub_ == nullptr) return absl::UnavailableError("no --syncer_address");
  uint64_t version_before = 0;
  {
    absl::MutexLock lock(&mutex_);
    version_before = WatchVersionLocked(request.name());
  }
  tidepool::v1::UpdateNodeResponse response;
  const grpc::Status status = stub_->UpdateNode(CallContext().get(), request, &response);
  if (!status.ok())
    return common::FromGrpcStatus(status, absl::StrCat("UpdateNode ", request.name()));
  // The next sync sees the new state without waiting for the watch, unless the watch
  // brought this node meanwhile: its state may be newer than the reply, and a stale
  // reply written over it would stay until the node's next change in Slurm.
  absl::MutexLock lock(&mutex_);
  if (WatchVersionLocked(request.name()) == version_before) {
    nodes_[response.node().name()] = response.node();
  }
  return response.node();
}

absl::StatusOr<SlurmNode> SyncerClient::Drain(const std::string& name, const std::string& reason) {
  UpdateNodeRequest request;
  request.set_name(name);
  request.set_action(UpdateNodeRequest::DRAIN);
  request.set_reason(reason);
  return Update(request);
}

absl::StatusOr<SlurmNode> SyncerClient::Undrain(const std::string& name,
                                                const std::string& if_reason) {
  UpdateNodeRequest request;
  request.set_name(name);
  request.set_action(UpdateNodeRequest::UNDRAIN);
  request.set_if_reason(if_reason);
  return Update(request);
}

absl::StatusOr<std::optional<SlurmNode>> SyncerClient::Fresh(const std::string& name) {
  if (stub_ == nullptr) return absl::UnavailableError("no --syncer_address");
  tidepool::v1::GetNodesRequest request;
  request.set_fresh(true);
  request.add_names(name);
  tidepool::v1::GetNodesResponse response;
  const grpc::Status status = stub_->GetNodes(CallContext().get(), request, &response);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) return std::nullopt;
  if (!status.ok()) return common::FromGrpcStatus(status, absl::StrCat("GetNodes ", name));
  for (const SlurmNode& node : response.nodes()) {
    if (node.name() == name) return node;
  }
  return std::nullopt;
}

}  // namespace tidepool::nodeset
