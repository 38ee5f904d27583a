#include "k8s/informer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tidepool::k8s {

Informer::Informer(Client& client, ResourceType type, std::string ns, InformerOptions options)
    : client_(client), type_(std::move(type)), ns_(std::move(ns)), options_(std::move(options)) {}

void Informer::AddHandlers(InformerHandlers handlers) {
  absl::MutexLock handlers_lock(&handlers_mutex_);
  if (handlers.on_add) {
    for (const CachedObjectPtr& object : List()) handlers.on_add(object);
  }
  handlers_.push_back(std::move(handlers));
}

void Informer::Start() {
  if (watch_ != nullptr) return;
  WatchOptions watch = options_.watch;
  watch.label_selector = options_.label_selector;
  watch.field_selector = options_.field_selector;
  watch.resource_version.clear();  // list first
  watch.keep_object_json = false;  // the cache has the objects; DELETED needs only the key
  watch.relist_requests = relist_requests_;
  watch.on_error = [this, report = options_.watch.on_error](const absl::Status& error) {
    RecordWatchError(error, absl::Now());
    if (report) report(error);
  };
  watch_ = std::make_unique<BackgroundWatch>(client_, type_, ns_, std::move(watch),
                                             [this](const WatchEvent& e) { HandleEvent(e); });
}

void Informer::Stop() { watch_.reset(); }

bool Informer::HasSynced() {
  absl::MutexLock lock(&mutex_);
  return synced_;
}

uint64_t Informer::RequestRelist() { return relist_requests_->Request(); }

bool Informer::RelistAnswered(uint64_t request) {
  absl::MutexLock lock(&mutex_);
  return relists_answered_ >= request;
}

void Informer::RecordWatchError(const absl::Status& error, absl::Time at) {
  absl::MutexLock lock(&mutex_);
  if (failing_since_ == absl::InfiniteFuture()) failing_since_ = at;
  last_error_ = error;
}

absl::Status Informer::Freshness(absl::Duration grace, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  if (failing_since_ == absl::InfiniteFuture() || now - failing_since_ <= grace) {
    return absl::OkStatus();
  }
  return absl::UnavailableError(absl::StrCat(
      "the watch of ", type_.resource, ns_.empty() ? "" : " in ", ns_, " has failed for ",
      absl::FormatDuration(absl::Trunc(now - failing_since_, absl::Seconds(1))),
      ": its cache may be behind (last error: ", last_error_.message(), ")"));
}

bool Informer::WaitForSync(absl::Duration timeout) {
  absl::MutexLock lock(&mutex_);
  return mutex_.AwaitWithTimeout(absl::Condition(&synced_), timeout);
}

void Informer::IndexLocked(const CachedObjectPtr& object, bool add) {
  const std::string key = object->meta.Key();
  auto update = [&](std::map<std::string, std::set<std::string>>& index, const std::string& at) {
    if (add) {
      index[at].insert(key);
    } else if (auto it = index.find(at); it != index.end()) {
      it->second.erase(key);
      if (it->second.empty()) index.erase(it);
    }
  };
  update(by_namespace_, object->meta.ns);
  for (auto& [label, by_value] : by_label_) {
    auto value = object->meta.labels.find(label);
    if (value != object->meta.labels.end()) update(by_value, value->second);
  }
}

void Informer::HandleEvent(const WatchEvent& event) {
  // Handlers see events in cache order, and one added meanwhile is not told twice.
  absl::MutexLock handlers_lock(&handlers_mutex_);
  std::any view;
  if (options_.parse_view &&
      (event.type == WatchEventType::kAdded || event.type == WatchEventType::kModified)) {
    view = options_.parse_view(event.object_json);
  }
  CachedObjectPtr old_object;
  CachedObjectPtr new_object;
  {
    absl::MutexLock lock(&mutex_);
    failing_since_ = absl::InfiniteFuture();  // the watch delivers again
    if (!event.meta.resource_version.empty() && !event.synthetic) {
      resource_version_ = event.meta.resource_version;
    }
    switch (event.type) {
      case WatchEventType::kAdded:
      case WatchEventType::kModified: {
        const bool viewed = view.has_value();
        CachedObject object{event.meta, std::string(), std::move(view)};
        if (options_.keep_viewed_json || !viewed) object.json = event.object_json;
        if (!options_.keep_viewed_labels && viewed) object.meta.labels.clear();
        new_object = std::make_shared<const CachedObject>(std::move(object));
        const std::string key = event.meta.Key();
        auto it = objects_.find(key);
        if (it != objects_.end()) {
          old_object = it->second;
          IndexLocked(old_object, false);
          it->second = new_object;
        } else {
          objects_.emplace(key, new_object);
        }
        IndexLocked(new_object, true);
        break;
      }
      case WatchEventType::kDeleted: {
        auto it = objects_.find(event.meta.Key());
        if (it == objects_.end()) return;
        old_object = it->second;
        IndexLocked(old_object, false);
        objects_.erase(it);
        break;
      }
      case WatchEventType::kSynced:
        resource_version_ = event.meta.resource_version;
        synced_ = true;
        relists_answered_ = std::max(relists_answered_, event.relists_answered);
        return;
      default:
        return;
    }
  }
  for (const InformerHandlers& handlers : handlers_) {
    if (new_object != nullptr && old_object == nullptr) {
      if (handlers.on_add) handlers.on_add(new_object);
    } else if (new_object != nullptr) {
      if (handlers.on_update) handlers.on_update(old_object, new_object);
    } else if (handlers.on_delete) {
      handlers.on_delete(old_object);
    }
  }
}

std::vector<CachedObjectPtr> Informer::ByKeysLocked(const std::set<std::string>& keys) {
  std::vector<CachedObjectPtr> out;
  out.reserve(keys.size());
  for (const std::string& key : keys) {
    auto it = objects_.find(key);
    if (it != objects_.end()) out.push_back(it->second);
  }
  return out;
}

CachedObjectPtr Informer::Get(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

std::vector<CachedObjectPtr> Informer::List() {
  absl::MutexLock lock(&mutex_);
  std::vector<CachedObjectPtr> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) out.push_back(object);
  return out;
}

std::vector<CachedObjectPtr> Informer::ListNamespace(const std::string& ns) {
  absl::MutexLock lock(&mutex_);
  auto it = by_namespace_.find(ns);
  return it == by_namespace_.end() ? std::vector<CachedObjectPtr>{} : ByKeysLocked(it->second);
}

std::vector<CachedObjectPtr> Informer::ListByLabel(const std::string& key,
                                                   const std::string& value) {
  absl::MutexLock lock(&mutex_);
  auto indexed = by_label_.find(key);
  if (indexed == by_label_.end()) {
    indexed = by_label_.try_emplace(key).first;
    for (const auto& [object_key, object] : objects_) {
      auto found = object->meta.labels.find(key);
      if (found != object->meta.labels.end()) indexed->second[found->second].insert(object_key);
    }
  }
  auto it = indexed->second.find(value);
  return it == indexed->second.end() ? std::vector<CachedObjectPtr>{} : ByKeysLocked(it->second);
}

std::vector<std::string> Informer::Keys() {
  absl::MutexLock lock(&mutex_);
  std::vector<std::string> out;
  for (const auto& [key, object] : objects_) out.push_back(key);
  return out;
}

std::string Informer::LastResourceVersion() {
  absl::MutexLock lock(&mutex_);
  return resource_version_;
}

Informer& InformerFactory::For(const ResourceType& type, const std::string& ns,
                               const InformerOptions& options) {
  const std::string key = absl::StrCat(type.group, "/", type.version, "/", type.resource, "|", ns,
                                       "|", options.label_selector, "|", options.field_selector);
  absl::MutexLock lock(&mutex_);
  std::unique_ptr<Informer>& informer = informers_[key];
  if (informer == nullptr) informer = std::make_unique<Informer>(client_, type, ns, options);
  return *informer;
}

void InformerFactory::Start() {
  absl::MutexLock lock(&mutex_);
  for (auto& [key, informer] : informers_) informer->Start();
}

bool InformerFactory::WaitForSync(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  std::vector<Informer*> informers;
  {
    absl::MutexLock lock(&mutex_);
    for (auto& [key, informer] : informers_) informers.push_back(informer.get());
  }
  for (Informer* informer : informers) {
    if (!informer->WaitForSync(std::max(deadline - absl::Now(), absl::ZeroDuration()))) {
      return false;
    }
  }
  return true;
}

absl::Status CachesCurrent(absl::Span<Informer* const> informers, absl::Duration grace) {
  for (Informer* informer : informers) {
    if (absl::Status fresh = informer->Freshness(grace); !fresh.ok()) return fresh;
  }
  return absl::OkStatus();
}

void InformerFactory::Stop() {
  absl::MutexLock lock(&mutex_);
  for (auto& [key, informer] : informers_) informer->Stop();
}

}  // namespace tidepool::k8s
