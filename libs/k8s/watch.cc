#include "k8s/watch.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "k8s/errors.h"

namespace tidepool::k8s {
namespace {

// Sleeps for `duration` or until stop is requested; false when stopped.
bool SleepUnlessStopped(absl::Duration duration, const std::stop_token& stop) {
  std::mutex mutex;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait_for(lock, stop, absl::ToChronoMilliseconds(duration), [] { return false; });
  return !stop.stop_requested();
}

// One RunWatch: list (when there is no version to start from, or it is too old), then
// stream from the last version seen, and decide after each stream whether to renew at
// once, relist or back off. `known_` is what the consumer has seen, for the relist diff.
class WatchLoop {
 public:
  WatchLoop(Client& client, const ResourceType& type, const std::string& ns, WatchOptions options,
            const std::function<void(const WatchEvent&)>& on_event, std::stop_token stop)
      : client_(client),
        type_(type),
        ns_(ns),
        options_(std::move(options)),
        on_event_(on_event),
        stop_(std::move(stop)),
        resource_version_(options_.resource_version),
        need_list_(resource_version_.empty()),
        backoff_(options_.min_backoff) {
    for (const std::string& json : options_.initial_objects) {
      absl::StatusOr<ObjectMeta> meta = ParseObjectMeta(json);
      if (meta.ok()) {
        known_[meta->Key()] = {meta->resource_version,
                               options_.keep_object_json ? json : std::string(), meta->uid};
      }
    }
    options_.initial_objects.clear();
  }

  void Run() {
    while (!stop_.stop_requested()) {
      if (RelistRequested()) need_list_ = true;
      if (need_list_) {
        if (absl::Status listed = ListAndResync(); !listed.ok()) {
          if (!Backoff(listed)) break;
          continue;
        }
      }
      const StreamEnd end = Stream();
      if (stop_.stop_requested()) break;
      if (RelistRequested()) continue;  // ended to relist: no failure
      if (!AfterStream(end)) break;
    }
  }

 private:
  // How one watch request ended.
  struct StreamEnd {
    absl::Status status;       // of the request
    absl::Status event_error;  // an ERROR event or an unreadable line
    bool progressed = false;   // at least one event was delivered
    absl::Time started;
  };

  bool RelistRequested() {
    return options_.relist_requests != nullptr && options_.relist_requests->Requested() > answered_;
  }

  // Lists every object and emits the events that take the consumer from `known_` to the
  // list (every object, when a relist was requested), then kSynced; the watch continues
  // from the list's version.
  absl::Status ListAndResync() {
    const uint64_t answering =
        options_.relist_requests != nullptr ? options_.relist_requests->Requested() : 0;
    const ResyncMode mode =
        answering > answered_ ? ResyncMode::kEveryObject : ResyncMode::kChangedOnly;
    // A page at a time: 10,000 Nodes' JSON is never held at once. A list that fails
    // midway leaves the consumer with some pages applied, as `known_` says; the next
    // list's diff goes on from there.
    std::set<std::string> listed;
    std::string version;
    absl::Status status =
        client_.ListPages(type_, ns_,
                          {.label_selector = options_.label_selector,
                           .field_selector = options_.field_selector,
                           .limit = options_.list_page_size},
                          [&](const ListResult& page) {
                            version = page.resource_version;
                            Deliver(ResyncPageEvents(known_, page.items, mode, listed));
                            return absl::OkStatus();
                          });
    if (!status.ok()) return status;
    Deliver(ResyncDeletions(known_, listed));
    resource_version_ = version;
    WatchEvent synced;
    synced.type = WatchEventType::kSynced;
    synced.meta.resource_version = resource_version_;
    synced.synthetic = true;
    synced.relists_answered = answering;
    answered_ = answering;
    on_event_(synced);
    need_list_ = false;
    backoff_ = options_.min_backoff;
    return absl::OkStatus();
  }

  void Deliver(const std::vector<WatchEvent>& events) {
    for (const WatchEvent& event : events) {
      ApplyEvent(event, known_, options_.keep_object_json);
      on_event_(event);
    }
  }

  // One watch request from `resource_version_`, delivering its events until it ends, an
  // event cannot be used, or stop or a relist is requested.
  StreamEnd Stream() {
    StreamEnd end;
    end.started = absl::Now();
    std::stop_source stream_stop;
    std::stop_callback forward_stop(stop_, [&stream_stop] { stream_stop.request_stop(); });
    StreamRegistration registration(options_.relist_requests.get(), &stream_stop);
    // A request made before the registration found no stream to end.
    if (RelistRequested()) stream_stop.request_stop();
    LineSplitter splitter;
    end.status = client_.WatchStream(
        type_, ns_,
        {.label_selector = options_.label_selector,
         .field_selector = options_.field_selector,
         .resource_version = resource_version_,
         .allow_bookmarks = true,
         .timeout_seconds = options_.server_timeout_seconds},
        [&](absl::string_view chunk) {
          return splitter.Feed(chunk, [&](absl::string_view line) {
            absl::StatusOr<WatchEvent> event = ParseWatchEvent(line);
            if (!event.ok()) {
              end.event_error = event.status();
              return false;
            }
            if (event->type == WatchEventType::kError) {
              end.event_error = event->error;
              return false;
            }
            if (!event->meta.resource_version.empty()) {
              resource_version_ = event->meta.resource_version;
            }
            ApplyEvent(*event, known_, options_.keep_object_json);
            end.progressed = true;
            on_event_(*event);
            return !stream_stop.stop_requested();
          });
        },
        stream_stop.get_token());
    return end;
  }

  // What to do after a stream ended; false when stopped while backing off.
  bool AfterStream(const StreamEnd& end) {
    const absl::Status& failure = end.event_error.ok() ? end.status : end.event_error;
    if (end.progressed) {
      backoff_ = options_.min_backoff;
      consecutive_gone_ = 0;
    }
    if (IsGone(failure)) {
      // Relist at once (the resync covers what happened meanwhile); if a fresh list's
      // version is refused again, back off before the next.
      need_list_ = true;
      if (++consecutive_gone_ == 1) {
        if (options_.on_error) options_.on_error(failure);
        return true;
      }
      return Backoff(failure);
    }
    if (failure.ok() && (end.progressed || absl::Now() - end.started > absl::Seconds(1))) {
      return true;  // the server ended the watch at its timeout: renew at once
    }
    if (failure.code() == absl::StatusCode::kInvalidArgument && HttpCode(failure) == 0) {
      // An unreadable event: the stream is out of step; relist to be sure.
      need_list_ = true;
    }
    return Backoff(failure.ok() ? absl::UnavailableError("the watch ended at once, without events")
                                : failure);
  }

  // Reports `status` and waits the current backoff, doubling it; false when stopped.
  bool Backoff(const absl::Status& status) {
    if (options_.on_error) options_.on_error(status);
    if (!SleepUnlessStopped(backoff_, stop_)) return false;
    backoff_ = std::min(backoff_ * 2, options_.max_backoff);
    return true;
  }

  Client& client_;
  const ResourceType& type_;
  const std::string& ns_;
  WatchOptions options_;
  const std::function<void(const WatchEvent&)>& on_event_;
  std::stop_token stop_;
  KnownObjects known_;
  std::string resource_version_;
  bool need_list_;
  absl::Duration backoff_;
  int consecutive_gone_ = 0;
  uint64_t answered_ = 0;  // relist requests answered by a list

  // The stream a relist request ends, while it runs.
  class StreamRegistration {
   public:
    StreamRegistration(RelistRequests* requests, std::stop_source* stream) : requests_(requests) {
      if (requests_ != nullptr) requests_->SetStream(stream);
    }
    ~StreamRegistration() {
      if (requests_ != nullptr) requests_->SetStream(nullptr);
    }
    StreamRegistration(const StreamRegistration&) = delete;
    StreamRegistration& operator=(const StreamRegistration&) = delete;

   private:
    RelistRequests* requests_;
  };
};

}  // namespace

uint64_t RelistRequests::Request() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++requested_;
  if (stream_ != nullptr) stream_->request_stop();
  return requested_;
}

uint64_t RelistRequests::Requested() {
  std::lock_guard<std::mutex> lock(mutex_);
  return requested_;
}

void RelistRequests::SetStream(std::stop_source* stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  stream_ = stream;
}

absl::Status RunWatch(Client& client, const ResourceType& type, const std::string& ns,
                      WatchOptions options, const std::function<void(const WatchEvent&)>& on_event,
                      std::stop_token stop) {
  if (absl::StatusOr<std::string> path = ResourcePath(type, ns); !path.ok()) {
    return path.status();
  }
  WatchLoop(client, type, ns, std::move(options), on_event, std::move(stop)).Run();
  return absl::OkStatus();
}

BackgroundWatch::BackgroundWatch(Client& client, ResourceType type, std::string ns,
                                 WatchOptions options,
                                 std::function<void(const WatchEvent&)> on_event)
    : thread_([this, &client, type = std::move(type), ns = std::move(ns),
               options = std::move(options),
               on_event = std::move(on_event)](std::stop_token stop) mutable {
        result_ = RunWatch(client, type, ns, std::move(options), on_event, std::move(stop));
      }) {}

void BackgroundWatch::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

}  // namespace tidepool::k8s
