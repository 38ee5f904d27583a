// The pure pieces of a watch: the event stream format, the line splitter and the relist
// diff. The loop that lists and streams is in watch.cc.

#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/bounded_json.h"
#include "k8s/errors.h"
#include "k8s/object_json.h"
#include "k8s/watch.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace tidepool::k8s {
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
  common::ParseBoundedJson(doc, line);
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
  DropManagedFields(object->value);
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

namespace {

// The DELETED of a known object, with its last JSON when kept and its key always.
WatchEvent DeletedEvent(const std::string& key, const KnownObject& object) {
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
  return deleted;
}

}  // namespace

std::vector<WatchEvent> ResyncPageEvents(const KnownObjects& known,
                                         const std::vector<std::string>& page, ResyncMode mode,
                                         std::set<std::string>& listed) {
  std::map<std::string, WatchEvent> current;  // by key
  for (const std::string& json : page) {
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
  for (auto& [key, event] : current) {
    listed.insert(key);
    auto it = known.find(key);
    if (it == known.end()) {
      event.type = WatchEventType::kAdded;
    } else if (!it->second.uid.empty() && !event.meta.uid.empty() &&
               it->second.uid != event.meta.uid) {
      events.push_back(DeletedEvent(key, it->second));  // replaced under the same name
      event.type = WatchEventType::kAdded;
    } else if (mode == ResyncMode::kEveryObject ||
               it->second.resource_version != event.meta.resource_version) {
      event.type = WatchEventType::kModified;
    } else {
      continue;
    }
    events.push_back(std::move(event));
  }
  return events;
}

std::vector<WatchEvent> ResyncDeletions(const KnownObjects& known,
                                        const std::set<std::string>& listed) {
  std::vector<WatchEvent> events;
  for (const auto& [key, object] : known) {
    if (!listed.contains(key)) events.push_back(DeletedEvent(key, object));
  }
  return events;
}

std::vector<WatchEvent> ResyncEvents(const KnownObjects& known,
                                     const std::vector<std::string>& listed, ResyncMode mode) {
  std::set<std::string> keys;
  std::vector<WatchEvent> updates = ResyncPageEvents(known, listed, mode, keys);
  std::vector<WatchEvent> events = ResyncDeletions(known, keys);
  events.insert(events.end(), std::make_move_iterator(updates.begin()),
                std::make_move_iterator(updates.end()));
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

}  // namespace tidepool::k8s
