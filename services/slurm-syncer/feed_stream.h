#pragma once

// A feed subscription written to a gRPC server stream: the snapshot split into messages
// of at most kSnapshotChunk items (the last marked snapshot_complete), then one message
// per published update. Used by WatchNodes and WatchJobs alike, whose responses share
// the field and enum names this relies on.

#include <atomic>
#include <cstddef>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "feed.h"
#include "google/protobuf/timestamp.pb.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/sync_stream.h"

namespace tidepool::syncer {

inline constexpr size_t kSnapshotChunk = 500;
inline constexpr absl::Duration kStreamCheckInterval = absl::Milliseconds(200);

inline void SetProtoTime(absl::Time time, google::protobuf::Timestamp* out) {
  if (time == absl::InfinitePast()) return;
  out->set_seconds(absl::ToUnixSeconds(time));
}

// AddChange(const Change<Item>&, Response*) appends one change; Keep(const Item&) says
// whether the watcher asked for it.
template <typename Item, typename Response, typename AddChange, typename Keep>
bool WriteUpdate(const FeedUpdate<Item>& update, grpc::ServerWriter<Response>* writer,
                 AddChange add_change, Keep keep) {
  Response message;
  SetProtoTime(update.observed_at, message.mutable_observed_at());
  switch (update.kind) {
    case FeedUpdate<Item>::Kind::kUnavailable:
      message.set_kind(Response::SLURM_UNAVAILABLE);
      message.set_unavailable_reason(update.unavailable_reason);
      return writer->Write(message);
    case FeedUpdate<Item>::Kind::kChanges: {
      message.set_kind(Response::CHANGES);
      for (const Change<Item>& change : update.changes) {
        if (keep(change.item)) add_change(change, &message);
      }
      // An empty update after an outage says the view is current again: pass it on.
      if (message.changes_size() == 0 && !update.changes.empty()) return true;
      return writer->Write(message);
    }
    case FeedUpdate<Item>::Kind::kSnapshot:
      break;
  }
  message.set_kind(Response::SNAPSHOT);
  for (const Change<Item>& change : update.changes) {
    if (!keep(change.item)) continue;
    add_change(change, &message);
    if (static_cast<size_t>(message.changes_size()) == kSnapshotChunk) {
      if (!writer->Write(message)) return false;
      message.clear_changes();
    }
  }
  message.set_snapshot_complete(true);
  return writer->Write(message);
}

template <typename Item, typename Response, typename AddChange, typename Keep>
grpc::Status StreamFeed(grpc::ServerContext* context, grpc::ServerWriter<Response>* writer,
                        Subscription<Item>& subscription, const std::atomic<bool>& ending,
                        AddChange add_change, Keep keep) {
  while (!context->IsCancelled() && !ending.load()) {
    std::optional<SharedUpdate<Item>> update = subscription.Next(kStreamCheckInterval);
    if (!update.has_value()) {
      if (subscription.closed()) break;
      continue;
    }
    if (!WriteUpdate(**update, writer, add_change, keep)) break;
  }
  subscription.Close();
  if (subscription.overflowed()) {
    return grpc::Status(grpc::StatusCode::ABORTED,
                        "this watch fell too far behind the poll loop and was dropped; "
                        "watch again for a fresh snapshot");
  }
  if (ending.load()) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "slurm-syncer is stopping; watch again");
  }
  return grpc::Status::OK;
}

}  // namespace tidepool::syncer
