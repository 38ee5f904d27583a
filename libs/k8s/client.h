#pragma once

// A Kubernetes API client for any group-version-resource. Objects travel as JSON text
// (what the API server sends and takes); the metadata the client itself needs is parsed
// into ObjectMeta. Failures are absl::Status as described in k8s/errors.h (IsConflict,
// IsNotFound, IsGone, ApiReason). Every request passes the client-side rate limiter
// (QPS + burst) and has a timeout. Requests made inside a k8s::UrgentRequests scope
// (k8s/request_priority.h) take their tokens from a second bucket of the same size, so
// a drain's writes never wait behind bulk writes; this at most doubles the client's
// rate, and only while urgent syncs run. Thread-safe: calls may run concurrently.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/clock.h"
#include "k8s/config.h"
#include "k8s/rate_limiter.h"
#include "k8s/resource.h"
#include "k8s/transport.h"

namespace tidepool::k8s {

struct ListOptions {
  std::string label_selector;  // "app=x,tier!=db"
  std::string field_selector;  // "metadata.name=x"
  int64_t limit = 0;           // page size; 0: everything at once
  std::string continue_token;  // from the previous page
  std::string resource_version;
  std::string resource_version_match;             // "NotOlderThan" | "Exact"
  absl::Duration timeout = absl::ZeroDuration();  // zero: the config's
};

struct ListResult {
  std::vector<std::string> items;  // each object as JSON text
  std::string resource_version;    // of the list: start a watch here
  std::string continue_token;      // empty on the last page
  std::optional<int64_t> remaining_item_count;
};

struct WriteOptions {
  std::string field_manager;  // fieldManager (who owns the fields written)
  bool dry_run = false;       // dryRun=All
  absl::Duration timeout = absl::ZeroDuration();
};

struct DeleteOptions {
  // Preconditions: delete only this incarnation / this version of the object.
  std::string precondition_uid;
  std::string precondition_resource_version;
  std::string propagation_policy;  // "Foreground" | "Background" | "Orphan"
  std::optional<int64_t> grace_period_seconds;
  bool dry_run = false;
  absl::Duration timeout = absl::ZeroDuration();
};

struct ApplyOptions {
  std::string field_manager;  // required by the API server for apply
  bool force = false;         // take over fields other managers own
  bool dry_run = false;
  absl::Duration timeout = absl::ZeroDuration();
};

// The scale subresource (autoscaling/v1 Scale).
struct Scale {
  int64_t spec_replicas = 0;
  int64_t status_replicas = 0;
  std::string selector;  // status.selector
  std::string resource_version;
};

struct WatchRequest {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // start after this version
  bool allow_bookmarks = true;
  int64_t timeout_seconds = 300;  // the server ends the stream after this
};

class Client {
 public:
  // `clock` (for the rate limiter) must outlive the client.
  explicit Client(ClientConfig config, common::Clock* clock = common::RealClock());

  // POST: the created object.
  absl::StatusOr<std::string> Create(const ResourceType& type, absl::string_view ns,
                                     absl::string_view object_json,
                                     const WriteOptions& options = {});
  absl::StatusOr<std::string> Get(const ResourceType& type, absl::string_view ns,
                                  absl::string_view name,
                                  absl::Duration timeout = absl::ZeroDuration());
  // One page (ns empty: all namespaces, or a cluster-scoped type).
  absl::StatusOr<ListResult> List(const ResourceType& type, absl::string_view ns,
                                  const ListOptions& options = {});
  // Every page, following continue tokens (pages of options.limit, 500 if 0); the
  // resourceVersion is the first page's (a consistent snapshot).
  absl::StatusOr<ListResult> ListAll(const ResourceType& type, absl::string_view ns,
                                     ListOptions options = {});
  // The same a page at a time: `on_page` gets each (its resource_version the first
  // page's) as it arrives, so the whole list is never held; its error ends the listing.
  absl::Status ListPages(const ResourceType& type, absl::string_view ns, ListOptions options,
                         const std::function<absl::Status(ListResult page)>& on_page);
  // PUT; the object's metadata.resourceVersion (if set) makes it conditional: a stale
  // one fails with IsConflict. `subresource` "status" writes only the status.
  absl::StatusOr<std::string> Update(const ResourceType& type, absl::string_view ns,
                                     absl::string_view name, absl::string_view object_json,
                                     const WriteOptions& options = {},
                                     absl::string_view subresource = "");
  absl::StatusOr<std::string> UpdateStatus(const ResourceType& type, absl::string_view ns,
                                           absl::string_view name, absl::string_view object_json,
                                           const WriteOptions& options = {}) {
    return Update(type, ns, name, object_json, options, "status");
  }
  // DELETE: the response body (the object, while finalizers hold it, or a Status).
  absl::StatusOr<std::string> Delete(const ResourceType& type, absl::string_view ns,
                                     absl::string_view name, const DeleteOptions& options = {});
  // PATCH application/merge-patch+json (RFC 7386).
  absl::StatusOr<std::string> MergePatch(const ResourceType& type, absl::string_view ns,
                                         absl::string_view name, absl::string_view patch_json,
                                         const WriteOptions& options = {},
                                         absl::string_view subresource = "");
  // Server-side apply: PATCH application/apply-patch+yaml (JSON is YAML) with the
  // field manager; the object must carry apiVersion, kind and metadata.name.
  absl::StatusOr<std::string> Apply(const ResourceType& type, absl::string_view ns,
                                    absl::string_view name, absl::string_view object_yaml_or_json,
                                    const ApplyOptions& options,
                                    absl::string_view subresource = "");

  absl::StatusOr<Scale> GetScale(const ResourceType& type, absl::string_view ns,
                                 absl::string_view name);
  // Sets spec.replicas through the scale subresource (a merge patch).
  absl::StatusOr<Scale> SetReplicas(const ResourceType& type, absl::string_view ns,
                                    absl::string_view name, int64_t replicas);

  // One watch request: raw event lines (newline-delimited JSON) go to `on_chunk` as they
  // arrive. Returns as Transport::Stream does. Most callers want k8s/watch.h instead.
  absl::Status WatchStream(const ResourceType& type, absl::string_view ns,
                           const WatchRequest& request,
                           const std::function<bool(absl::string_view chunk)>& on_chunk,
                           const std::stop_token& stop = {});

  // Any request (after the rate limiter); a non-2xx status becomes its error.
  absl::StatusOr<std::string> Call(const HttpRequest& request);

  const ClientConfig& config() const { return transport_.config(); }
  TokenBucketRateLimiter& rate_limiter() { return limiter_; }

 private:
  // Waits for a token from the bucket the calling thread's requests draw from.
  void WaitForToken();

  Transport transport_;
  TokenBucketRateLimiter limiter_;
  TokenBucketRateLimiter urgent_limiter_;
};

// Parses a Scale object's JSON.
absl::StatusOr<Scale> ParseScale(absl::string_view json);
// Parses a list response's JSON.
absl::StatusOr<ListResult> ParseList(absl::string_view json);

}  // namespace tidepool::k8s
