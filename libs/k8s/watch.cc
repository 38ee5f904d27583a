#include "k8s/watch.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "k8s/errors.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace tidepool::k8s {
namespace {

std::string ToJson(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// Sleeps for `duration` or until stop is requested; false when stopped.
bool SleepUnlessStopped(absl::Duration duration, std::stop_token stop) {
  std::mutex mutex;
  std::condition_variable_any cv;
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait_for(lock, stop, absl::ToChronoMilliseconds(duration), [] { return false; });
  return !stop.stop_requested();
}

}  // namespace

absl::string_view WatchEventTypeName(WatchEventType type) {
  switch (type) {
    case WatchEventType::kAdded:
      return "ADDED";
    case WatchEventType::kModified:
      return "MODIFIED";
    case WatchEventType::kDeleted:
      return "DELETED";
    case WatchEventType::kBookmark:
      return "BOOKMARK";
    case WatchEventType::kError:
      return "ERROR";
    case WatchEventType::kSynced:
      return "SYNCED";
  }
  return "UNKNOWN";
}

absl::StatusOr<WatchEvent> ParseWatchEvent(absl::string_view line) {
  rapidjson::Document doc;
  doc.Parse(line.data(), line.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return absl::InvalidArgumentError(
        absl::StrCat("watch event is not a JSON object: ", line.substr(0, 200)));
  }
  auto type = doc.FindMember("type");
  auto object = doc.FindMember("object");
  if (type == doc.MemberEnd() || !type->value.IsString() || object == doc.MemberEnd() ||
      !object->value.IsObject()) {
    return absl::InvalidArgumentError(
        absl::StrCat("watch event without type or object: ", line.substr(0, 200)));
  }
  const absl::string_view name(type->value.GetString(), type->value.GetStringLength());
  WatchEvent event;
  if (name == "ADDED") {
    event.type = WatchEventType::kAdded;
  } else if (name == "MODIFIED") {
    event.type = WatchEventType::kModified;
  } else if (name == "DELETED") {
    event.type = WatchEventType::kDeleted;
  } else if (name == "BOOKMARK") {
    event.type = WatchEventType::kBookmark;
  } else if (name == "ERROR") {
    event.type = WatchEventType::kError;
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown watch event type \"", name, "\""));
  }
  event.object_json = ToJson(object->value);
  if (event.type == WatchEventType::kError) {
    event.error = StatusFromStatusObject(event.object_json);
  } else {
    event.meta = MetaFromValue(object->value);
  }
  return event;
}

bool LineSplitter::Feed(absl::string_view chunk,
                        const std::function<bool(absl::string_view)>& on_line) {
  // Whole lines inside `chunk` are handed over without copying when nothing is pending.
  size_t start = 0;
  while (start < chunk.size()) {
    const size_t newline = chunk.find('\n', start);
    if (newline == absl::string_view::npos) break;
    absl::string_view line = chunk.substr(start, newline - start);
    start = newline + 1;
    if (!pending_.empty()) {
      pending_.append(line.data(), line.size());
      std::string full = std::move(pending_);
      pending_.clear();
      if (!full.empty() && full.back() == '\r') full.pop_back();
      if (!full.empty() && !on_line(full)) return false;
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && !on_line(line)) return false;
  }
  pending_.append(chunk.data() + start, chunk.size() - start);
  return true;
}

std::vector<WatchEvent> ResyncEvents(const KnownObjects& known,
                                     const std::vector<std::string>& listed) {
  std::map<std::string, WatchEvent> current;
  for (const std::string& json : listed) {
    absl::StatusOr<ObjectMeta> meta = ParseObjectMeta(json);
    if (!meta.ok()) continue;
    WatchEvent event;
    event.object_json = json;
    event.meta = *std::move(meta);
    event.synthetic = true;
    std::string key = event.meta.Key();
    current.emplace(std::move(key), std::move(event));
  }
  std::vector<WatchEvent> events;
  std::set<std::string> replaced;  // same key, another uid
  for (const auto& [key, object] : known) {
    auto listed_it = current.find(key);
    if (listed_it != current.end()) {
      if (object.uid.empty() || listed_it->second.meta.uid.empty() ||
          object.uid == listed_it->second.meta.uid) {
        continue;
      }
      replaced.insert(key);
    }
    WatchEvent deleted;
    deleted.type = WatchEventType::kDeleted;
    deleted.object_json = object.object_json;
    absl::StatusOr<ObjectMeta> meta = ParseObjectMeta(object.object_json);
    if (meta.ok()) deleted.meta = *std::move(meta);
    if (deleted.meta.name.empty()) {  // keep the key even when the object is unreadable
      const size_t slash = key.find('/');
      deleted.meta.name = slash == std::string::npos ? key : key.substr(slash + 1);
      if (slash != std::string::npos) deleted.meta.ns = key.substr(0, slash);
    }
    deleted.synthetic = true;
    events.push_back(std::move(deleted));
  }
  for (auto& [key, event] : current) {
    auto it = known.find(key);
    if (it == known.end() || replaced.count(key) != 0) {
      event.type = WatchEventType::kAdded;
    } else if (it->second.resource_version != event.meta.resource_version) {
      event.type = WatchEventType::kModified;
    } else {
      continue;
    }
    events.push_back(std::move(event));
  }
  return events;
}

void ApplyEvent(const WatchEvent& event, KnownObjects& known, bool keep_json) {
  switch (event.type) {
    case WatchEventType::kAdded:
    case WatchEventType::kModified:
      known[event.meta.Key()] = {event.meta.resource_version,
                                 keep_json ? event.object_json : std::string(), event.meta.uid};
      break;
    case WatchEventType::kDeleted:
      known.erase(event.meta.Key());
      break;
    default:
      break;
  }
}

absl::Status RunWatch(Client& client, const ResourceType& type, const std::string& ns,
                      WatchOptions options, const std::function<void(const WatchEvent&)>& on_event,
                      std::stop_token stop) {
  if (absl::StatusOr<std::string> path = ResourcePath(type, ns); !path.ok()) {
    return path.status();
  }
  KnownObjects known;
  for (const std::string& json : options.initial_objects) {
    absl::StatusOr<ObjectMeta> meta = ParseObjectMeta(json);
    if (meta.ok()) {
      known[meta->Key()] = {meta->resource_version, options.keep_object_json ? json : std::string(),
                            meta->uid};
    }
  }
  options.initial_objects.clear();
  std::string resource_version = options.resource_version;
  bool need_list = resource_version.empty();
  absl::Duration backoff = options.min_backoff;
  int consecutive_gone = 0;
  auto fail = [&](const absl::Status& status) {
    if (options.on_error) options.on_error(status);
    if (!SleepUnlessStopped(backoff, stop)) return false;
    backoff = std::min(backoff * 2, options.max_backoff);
    return true;
  };

  while (!stop.stop_requested()) {
    if (need_list) {
      absl::StatusOr<ListResult> list = client.ListAll(type, ns,
                                                       {.label_selector = options.label_selector,
                                                        .field_selector = options.field_selector,
                                                        .limit = options.list_page_size});
      if (!list.ok()) {
        if (!fail(list.status())) break;
        continue;
      }
      for (const WatchEvent& event : ResyncEvents(known, list->items)) {
        ApplyEvent(event, known, options.keep_object_json);
        on_event(event);
      }
      resource_version = list->resource_version;
      WatchEvent synced;
      synced.type = WatchEventType::kSynced;
      synced.meta.resource_version = resource_version;
      synced.synthetic = true;
      on_event(synced);
      need_list = false;
      backoff = options.min_backoff;
    }

    LineSplitter splitter;
    const absl::Time started = absl::Now();
    absl::Status event_error;  // an ERROR event or an unreadable line
    bool progressed = false;
    const absl::Status status = client.WatchStream(
        type, ns,
        {.label_selector = options.label_selector,
         .field_selector = options.field_selector,
         .resource_version = resource_version,
         .allow_bookmarks = true,
         .timeout_seconds = options.server_timeout_seconds},
        [&](absl::string_view chunk) {
          return splitter.Feed(chunk, [&](absl::string_view line) {
            absl::StatusOr<WatchEvent> event = ParseWatchEvent(line);
            if (!event.ok()) {
              event_error = event.status();
              return false;
            }
            if (event->type == WatchEventType::kError) {
              event_error = event->error;
              return false;
            }
            if (!event->meta.resource_version.empty()) {
              resource_version = event->meta.resource_version;
            }
            ApplyEvent(*event, known, options.keep_object_json);
            progressed = true;
            on_event(*event);
            return !stop.stop_requested();
          });
        },
        stop);
    if (stop.stop_requested()) break;
    const absl::Status& failure = event_error.ok() ? status : event_error;
    if (progressed) {
      backoff = options.min_backoff;
      consecutive_gone = 0;
    }
    if (IsGone(failure)) {
      // Relist at once (the resync covers what happened meanwhile); if a fresh list's
      // version is refused again, back off before the next.
      need_list = true;
      if (++consecutive_gone == 1) {
        if (options.on_error) options.on_error(failure);
        continue;
      }
      if (!fail(failure)) break;
      continue;
    }
    if (failure.ok() && (progressed || absl::Now() - started > absl::Seconds(1))) {
      continue;  // the server ended the watch at its timeout: renew at once
    }
    if (failure.code() == absl::StatusCode::kInvalidArgument && HttpCode(failure) == 0) {
      // An unreadable event: the stream is out of step; relist to be sure.
      need_list = true;
    }
    if (!fail(failure.ok() ? absl::UnavailableError("the watch ended at once, without events")
                           : failure)) {
      break;
    }
  }
  return absl::OkStatus();
}

BackgroundWatch::BackgroundWatch(Client& client, ResourceType type, std::string ns,
                                 WatchOptions options,
                                 std::function<void(const WatchEvent&)> on_event)
    : thread_([this, &client, type = std::move(type), ns = std::move(ns),
               options = std::move(options),
               on_event = std::move(on_event)](std::stop_token stop) mutable {
        result_ = RunWatch(client, type, ns, std::move(options), on_event, stop);
      }) {}

void BackgroundWatch::Stop() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

}  // namespace tidepool::k8s
