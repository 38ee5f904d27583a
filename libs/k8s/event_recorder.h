#pragma once

// Kubernetes Events (events.k8s.io/v1) for what a controller did to an object.
//
// Record never blocks on the API server: it plans the write (EventAggregator, pure) and
// queues it for a writer thread; when the queue is full the event is dropped and counted.
// Repeats aggregate as client-go's event series do: the same (regarding object, type,
// reason, action, note) within the aggregation window updates the first Event's
// series.count and series.lastObservedTime instead of creating another Event. Write
// failures go to `on_error` (default: a log line on stderr); an Event whose series update
// finds it gone (events expire after an hour) is created again with its count.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/client.h"

namespace tidepool::k8s {

// The object an Event is about (core/v1 ObjectReference).
struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string ns;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
};

// The reference to an object given as JSON (apiVersion, kind and metadata);
// InvalidArgument without kind or metadata.name.
absl::StatusOr<ObjectReference> ReferenceTo(absl::string_view object_json);

enum class EventType { kNormal, kWarning };
absl::string_view EventTypeName(EventType type);  // "Normal", "Warning"

struct EventOccurrence {
  ObjectReference regarding;
  EventType type = EventType::kNormal;
  std::string reason;  // UpperCamelCase, why: "NodeDrained"
  std::string action;  // what was done: "Drain"
  std::string note;    // for people: "drained n-01 for pod hpc/job-7 (NotReady)"
};

// One write the recorder will make.
struct PlannedEventWrite {
  enum class Kind { kCreate, kUpdateSeries };
  Kind kind = Kind::kCreate;
  std::string ns;
  std::string name;
  std::string create_json;  // the whole Event (also used when the series' Event is gone)
  std::string patch_json;   // kUpdateSeries: a merge patch of series
};

struct EventRecorderOptions {
  std::string reporting_controller;  // "tidepool.dev/nodeset-controller"
  std::string reporting_instance;    // this replica: the pod name
  // client-go's event series end after 6 minutes without a repeat.
  absl::Duration aggregation_window = absl::Minutes(6);
  size_t max_pending = 1000;         // queued writes; more are dropped
  size_t max_tracked_series = 4096;  // aggregation memory; the oldest are forgotten
  std::function<void(const absl::Status&)> on_error;  // default: a line on stderr
};

// Turns occurrences into Event writes: names, the Event JSON, and series aggregation.
// Pure apart from its own memory; not thread-safe.
class EventAggregator {
 public:
  explicit EventAggregator(const EventRecorderOptions& options) : options_(options) {}
  PlannedEventWrite Plan(const EventOccurrence& occurrence, absl::Time now);
  size_t tracked() const { return series_.size(); }

 private:
  struct Series {
    std::string ns;
    std::string name;
    absl::Time first;
    absl::Time last;
    int64_t count = 0;
    EventOccurrence occurrence;
  };
  void ForgetOldest();

  const EventRecorderOptions& options_;
  std::map<std::string, Series> series_;  // by aggregation key
  uint64_t sequence_ = 0;
};

// The Event object for an occurrence first seen at `first` (series when count > 1).
std::string EventJson(const EventOccurrence& occurrence, const EventRecorderOptions& options,
                      absl::string_view ns, absl::string_view name, absl::Time first, int64_t count,
                      absl::Time last);

class EventRecorder {
 public:
  // `client` and `clock` outlive the recorder.
  EventRecorder(Client& client, EventRecorderOptions options,
                common::Clock* clock = common::RealClock());
  // Writes what is queued (bounded by the client's timeouts), then stops.
  ~EventRecorder();
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  void Record(const ObjectReference& regarding, EventType type, absl::string_view reason,
              absl::string_view action, absl::string_view note);
  // Waits until every queued write has been made; false on timeout.
  bool Flush(absl::Duration timeout);
  uint64_t dropped();
  uint64_t failed();

 private:
  void WriteLoop();
  void Write(const PlannedEventWrite& write);
  void Fail(const absl::Status& status);

  Client& client_;
  const EventRecorderOptions options_;
  common::Clock* const clock_;
  absl::Mutex mutex_;
  EventAggregator aggregator_ ABSL_GUARDED_BY(mutex_);
  std::deque<PlannedEventWrite> pending_ ABSL_GUARDED_BY(mutex_);
  bool writing_ ABSL_GUARDED_BY(mutex_) = false;  // a write is in flight
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t dropped_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t failed_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread writer_;  // last: started after everything above exists
};

}  // namespace tidepool::k8s
