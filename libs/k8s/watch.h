#pragma once

// Watches: the event stream format (newline-delimited JSON, parsed incrementally), the
// relist diff (pure), and a watch that keeps going: it restarts from the last
// resourceVersion it saw when the connection drops, and when that version is too old
// (410 Gone / Expired, as an HTTP status or an ERROR event) it lists again and emits a
// synthetic resync, so the consumer ends with the final state of every object and a
// deletion for each object that vanished meanwhile, without repeats or losses.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "k8s/client.h"
#include "k8s/resource.h"

namespace tidepool::k8s {

enum class WatchEventType {
  kAdded,
  kModified,
  kDeleted,
  kBookmark,  // only meta.resource_version is meaningful
  kError,     // `error` holds the Status the server sent
  kSynced,    // (RunWatch only) a list or relist has been delivered; meta.resource_version
};

absl::string_view WatchEventTypeName(WatchEventType type);  // "ADDED", …, "SYNCED"

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  std::string object_json;  // the object (empty for kSynced)
  ObjectMeta meta;
  absl::Status error;      // kError only
  bool synthetic = false;  // made by a list/relist, not sent by a watch
  // kSynced only: the relist requests (RelistRequests::Request) this list answers, all
  // those made before it started.
  uint64_t relists_answered = 0;
};

// One line of a watch stream ({"type":"ADDED","object":{…}}).
absl::StatusOr<WatchEvent> ParseWatchEvent(absl::string_view line);

// Splits a byte stream into lines however it is chunked; empty lines are skipped.
class LineSplitter {
 public:
  // Calls `on_line` for each complete line in `chunk` (plus what earlier chunks left);
  // stops early, returning false, when `on_line` does.
  bool Feed(absl::string_view chunk, const std::function<bool(absl::string_view line)>& on_line);
  size_t pending_bytes() const { return pending_.size(); }

 private:
  std::string pending_;
};

// What the consumer of a watch last saw of an object.
struct KnownObject {
  std::string resource_version;
  std::string object_json;
  std::string uid;
};
using KnownObjects = std::map<std::string, KnownObject>;  // by ObjectMeta::Key()

// Which unchanged objects a relist delivers again: none (a resync after a lost watch), or
// all of them (a consumer that asked for a relist to read every object anew).
enum class ResyncMode { kChangedOnly, kEveryObject };

// The events that take a consumer who saw `known` to the `listed` objects: DELETED (with
// the last known object) for keys no longer listed, ADDED for new keys, MODIFIED for
// changed resourceVersions; for unchanged ones nothing, or MODIFIED with kEveryObject. An
// object deleted and created again under the same name (another uid) is a DELETED and an
// ADDED. Deletions first, then by key. All events are synthetic. Items without a name are
// skipped.
std::vector<WatchEvent> ResyncEvents(const KnownObjects& known,
                                     const std::vector<std::string>& listed,
                                     ResyncMode mode = ResyncMode::kChangedOnly);
// The same for a list read a page at a time (so that a list of 10,000 Nodes is never held
// whole): each page's ADDED and MODIFIED (an object replaced under its name: DELETED, then
// ADDED), its keys added to `listed`; after the last page, ResyncDeletions gives the
// DELETED of every known key no page listed.
std::vector<WatchEvent> ResyncPageEvents(const KnownObjects& known,
                                         const std::vector<std::string>& page, ResyncMode mode,
                                         std::set<std::string>& listed);
std::vector<WatchEvent> ResyncDeletions(const KnownObjects& known,
                                        const std::set<std::string>& listed);
// Applies an ADDED/MODIFIED/DELETED event to `known`; without `keep_json` only the
// resourceVersion and uid are kept.
void ApplyEvent(const WatchEvent& event, KnownObjects& known, bool keep_json = true);

// Requests that a running watch list everything again and deliver every object (as
// MODIFIED when unchanged), then kSynced with `relists_answered`: for a consumer whose
// reading of objects changed (an informer's view now keeps more). Shared by the consumer,
// which requests, and the watch, which ends its current stream to answer at once.
class RelistRequests {
 public:
  // Records a request; its number, answered by the first kSynced whose relists_answered
  // is at least that.
  uint64_t Request();
  // (The watch) the requests a list starting now answers.
  uint64_t Requested();
  // (The watch) the stream now running, ended by the next Request; null when none.
  void SetStream(std::stop_source* stream);

 private:
  std::mutex mutex_;
  uint64_t requested_ = 0;
  std::stop_source* stream_ = nullptr;
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  // Start after this version with `initial_objects` (JSON) as what the consumer already
  // has (a List's resourceVersion and items). Empty: list first, emitting ADDED for every
  // object and then kSynced.
  std::string resource_version;
  std::vector<std::string> initial_objects;
  // The watch remembers each object's JSON so that after a relist the DELETED of an
  // object that vanished carries its last state. A consumer with a cache of its own (the
  // informer) turns this off: its DELETED then has only the name (meta), and the watch
  // does not hold a second copy of every object.
  bool keep_object_json = true;
  int64_t server_timeout_seconds = 300;  // each watch request; then it is renewed
  int64_t list_page_size = 500;
  absl::Duration min_backoff = absl::Milliseconds(200);
  absl::Duration max_backoff = absl::Seconds(10);
  // Called with each failure before a retry (the watch itself never gives up).
  std::function<void(const absl::Status&)> on_error;
  // Relists on request (optional).
  std::shared_ptr<RelistRequests> relist_requests;
};

// Watches until `stop` is requested, then returns OK. `on_event` runs on the calling
// thread with ADDED/MODIFIED/DELETED/BOOKMARK (from the server or synthetic) and
// kSynced after each list. InvalidArgument for a bad resource path.
absl::Status RunWatch(Client& client, const ResourceType& type, const std::string& ns,
                      WatchOptions options, const std::function<void(const WatchEvent&)>& on_event,
                      std::stop_token stop);

// RunWatch on a thread of its own, stopped and joined on destruction.
class BackgroundWatch {
 public:
  BackgroundWatch(Client& client, ResourceType type, std::string ns, WatchOptions options,
                  std::function<void(const WatchEvent&)> on_event);
  ~BackgroundWatch() { Stop(); }
  BackgroundWatch(const BackgroundWatch&) = delete;
  BackgroundWatch& operator=(const BackgroundWatch&) = delete;
  void Stop();
  // RunWatch's result once stopped.
  absl::Status result() const { return result_; }

 private:
  absl::Status result_;
  std::jthread thread_;
};

}  // namespace tidepool::k8s
