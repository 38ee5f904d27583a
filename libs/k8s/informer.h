#pragma once

// An informer: one shared cache of a resource (list + watch through RunWatch), objects
// keyed by namespace/name, indexed by namespace and by label, with add/update/delete
// handlers and HasSynced. Handlers run on the informer's watch thread, after the cache
// has been updated; they should only enqueue keys (level-triggered controllers read the
// cache in their sync).

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "k8s/client.h"
#include "k8s/resource.h"
#include "k8s/watch.h"

namespace tidepool::k8s {

// How long a watch may fail before its cache counts as stale: several retries at the
// watch's longest backoff (10 s), so one dropped connection does not count.
inline constexpr absl::Duration kCacheStaleAfter = absl::Seconds(30);

struct CachedObject {
  ObjectMeta meta;
  // Empty when the informer keeps views only (InformerOptions::keep_viewed_json false) and
  // this object has a view.
  std::string json;
  // What InformerOptions::parse_view made of `json` (empty without one, or when it could
  // not): a typed view parsed once when the object is stored, not on every read.
  std::any view;

  // The view as `View`, or null when there is none of that type (read the JSON then).
  template <typename View>
  const View* ViewAs() const {
    return std::any_cast<View>(&view);
  }
};
using CachedObjectPtr = std::shared_ptr<const CachedObject>;

// The view of `object` as `View`, sharing the cache entry's ownership: it stays valid as
// long as the caller holds it, after the cache replaced or dropped the entry too. Null
// when there is no view of that type (or no object).
template <typename View>
std::shared_ptr<const View> SharedViewAs(const CachedObjectPtr& object) {
  const View* view = object != nullptr ? object->ViewAs<View>() : nullptr;
  return view != nullptr ? std::shared_ptr<const View>(object, view) : nullptr;
}

struct InformerHandlers {
  std::function<void(const CachedObjectPtr&)> on_add;
  std::function<void(const CachedObjectPtr& old_object, const CachedObjectPtr& new_object)>
      on_update;
  // The last state the cache had (after a resync, possibly not the final one on the server).
  std::function<void(const CachedObjectPtr&)> on_delete;
};

struct InformerOptions {
  std::string label_selector;
  std::string field_selector;
  WatchOptions watch;  // backoff, page size, timeouts, on_error (selectors set from above)
  // Optional: parses each added or modified object's JSON into CachedObject::view, on the
  // watch thread before the cache is locked. Returns an empty std::any for an object it
  // cannot read. With InformerFactory, the first For() of an informer sets its options.
  std::function<std::any(absl::string_view json)> parse_view;
  // Whether an object whose view was parsed keeps its JSON too. False where every reader
  // reads the view when there is one (10,000 Nodes and pods cost 24 and 49 MB of JSON in
  // each process that caches them); an object without a view always keeps its JSON.
  bool keep_viewed_json = true;
  // Whether an object whose view was parsed keeps its labels in `meta`. False where no
  // reader takes a viewed object's labels from its metadata and none lists by label
  // (ListByLabel does not find such objects): Nodes, whose model has the labels again.
  bool keep_viewed_labels = true;
};

class Informer {
 public:
  // `ns` empty: all namespaces (or a cluster-scoped type). `client` outlives the informer.
  Informer(Client& client, ResourceType type, std::string ns, InformerOptions options = {});
  ~Informer() { Stop(); }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Handlers added before Start see every object; later ones get on_add for each object
  // already cached (replayed before they see further events).
  void AddHandlers(InformerHandlers handlers);
  void Start();
  void Stop();

  // True once the first list has been stored and handled.
  bool HasSynced();
  // Asks the watch to list again and deliver every object anew (parse_view reads each
  // again, and handlers see an update for each): for a parse_view whose reading changed.
  // Returns the request's number for RelistAnswered.
  uint64_t RequestRelist();
  // Whether a list that started after request `request` has been stored and handled.
  bool RelistAnswered(uint64_t request);
  // OK while the cache follows the server. Once the watch has failed for longer than
  // `grace` with no event since (an API server outage), Unavailable naming the resource,
  // how long and the last error: the cache may be behind, and acting on it could undo a
  // newer change. Any event (a bookmark included) or a relist makes it current again.
  absl::Status Freshness(absl::Duration grace, absl::Time now = absl::Now());
  // A failure of the watch at `at` (the watch reports each; public for tests).
  void RecordWatchError(const absl::Status& error, absl::Time at);
  bool WaitForSync(absl::Duration timeout);

  CachedObjectPtr Get(const std::string& key);  // null when absent
  CachedObjectPtr Get(const std::string& ns, const std::string& name) {
    return Get(ns.empty() ? name : ns + "/" + name);
  }
  std::vector<CachedObjectPtr> List();  // ordered by key
  std::vector<CachedObjectPtr> ListNamespace(const std::string& ns);
  std::vector<CachedObjectPtr> ListByLabel(const std::string& key, const std::string& value);
  std::vector<std::string> Keys();
  // The resourceVersion the cache is at (last event, bookmark or list).
  std::string LastResourceVersion();

  // Applies one event as the watch would (public so the cache logic is unit tested
  // without a server).
  void HandleEvent(const WatchEvent& event);

 private:
  void IndexLocked(const CachedObjectPtr& object, bool add) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  std::vector<CachedObjectPtr> ByKeysLocked(const std::set<std::string>& keys)
      ABSL_SHARED_LOCKS_REQUIRED(mutex_);

  Client& client_;
  const ResourceType type_;
  const std::string ns_;
  const InformerOptions options_;

  absl::Mutex handlers_mutex_;  // held while handlers run (keeps their order)
  std::vector<InformerHandlers> handlers_ ABSL_GUARDED_BY(handlers_mutex_);

  absl::Mutex mutex_;
  std::map<std::string, CachedObjectPtr> objects_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, std::set<std::string>> by_namespace_ ABSL_GUARDED_BY(mutex_);
  // Label key -> value -> object keys, for the label keys someone listed by: a key is
  // indexed from its first ListByLabel on (a Node has dozens of labels nobody lists by,
  // and indexing them all cost about 2 KB per Node).
  std::map<std::string, std::map<std::string, std::set<std::string>>> by_label_
      ABSL_GUARDED_BY(mutex_);
  std::string resource_version_ ABSL_GUARDED_BY(mutex_);
  bool synced_ ABSL_GUARDED_BY(mutex_) = false;
  const std::shared_ptr<RelistRequests> relist_requests_ = std::make_shared<RelistRequests>();
  uint64_t relists_answered_ ABSL_GUARDED_BY(mutex_) = 0;
  // The first watch failure since the last event; InfiniteFuture while none.
  absl::Time failing_since_ ABSL_GUARDED_BY(mutex_) = absl::InfiniteFuture();
  absl::Status last_error_ ABSL_GUARDED_BY(mutex_);

  std::unique_ptr<BackgroundWatch> watch_;
};

// The first of `informers` whose cache is stale (Informer::Freshness), OK when none is.
absl::Status CachesCurrent(absl::Span<Informer* const> informers,
                           absl::Duration grace = kCacheStaleAfter);

// One informer per (resource, namespace, selectors), shared by every controller of a
// process: they all read one cache and one watch feeds it. Informers live as long as the
// factory; Start starts those not yet started.
class InformerFactory {
 public:
  explicit InformerFactory(Client& client) : client_(client) {}
  // The informer for this resource; the same object for the same arguments.
  Informer& For(const ResourceType& type, const std::string& ns = "",
                const InformerOptions& options = {});
  void Start();
  // True when every informer made so far has synced, waiting at most `timeout` in all.
  bool WaitForSync(absl::Duration timeout);
  void Stop();

 private:
  Client& client_;
  absl::Mutex mutex_;
  std::map<std::string, std::unique_ptr<Informer>> informers_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace tidepool::k8s
