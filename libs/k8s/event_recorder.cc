#include "k8s/event_recorder.h"

#include <cstdio>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "k8s/errors.h"
#include "k8s/object_json.h"
#include "k8s/resource.h"

namespace tidepool::k8s {
namespace {

// The API server refuses longer values (events.k8s.io/v1 validation).
constexpr size_t kMaxNoteBytes = 1024;
constexpr size_t kMaxReasonBytes = 128;

// `text` cut to at most `limit` bytes, at a UTF-8 character boundary.
std::string Truncated(absl::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end));
}

std::string AggregationKey(const EventOccurrence& o) {
  const ObjectReference& r = o.regarding;
  return absl::StrCat(r.api_version, "\x1f", r.kind, "\x1f", r.ns, "\x1f", r.name, "\x1f", r.uid,
                      "\x1f", EventTypeName(o.type), "\x1f", o.reason, "\x1f", o.action, "\x1f",
                      o.note);
}

// Events about cluster-scoped objects (Nodes) live in "default", as client-go puts them.
std::string EventNamespace(const ObjectReference& regarding) {
  return regarding.ns.empty() ? "default" : regarding.ns;
}

rapidjson::Value ReferenceValue(const ObjectReference& r,
                                rapidjson::Document::AllocatorType& allocator) {
  rapidjson::Value value(rapidjson::kObjectType);
  auto set = [&](const char* key, const std::string& field) {
    if (!field.empty()) SetStringMember(value, key, field, allocator);
  };
  set("apiVersion", r.api_version);
  set("kind", r.kind);
  set("namespace", r.ns);
  set("name", r.name);
  set("uid", r.uid);
  set("resourceVersion", r.resource_version);
  return value;
}

rapidjson::Value SeriesValue(int64_t count, absl::Time last,
                             rapidjson::Document::AllocatorType& allocator) {
  rapidjson::Value series(rapidjson::kObjectType);
  series.AddMember("count", count, allocator);
  SetStringMember(series, "lastObservedTime", FormatMicroTime(last), allocator);
  return series;
}

void DefaultOnError(const absl::Status& status) {
  std::fprintf(stderr, "level=warn event=k8s_event_write_failed error=\"%s\"\n",
               absl::CEscape(status.ToString()).c_str());
}

}  // namespace

absl::string_view EventTypeName(EventType type) {
  return type == EventType::kWarning ? "Warning" : "Normal";
}

absl::StatusOr<ObjectReference> ReferenceTo(absl::string_view object_json) {
  absl::StatusOr<rapidjson::Document> doc = ParseJsonObject(object_json, "object");
  if (!doc.ok()) return doc.status();
  ObjectReference ref;
  ref.api_version = StringMember(*doc, "apiVersion");
  ref.kind = StringMember(*doc, "kind");
  const ObjectMeta meta = MetaFromValue(*doc);
  ref.ns = meta.ns;
  ref.name = meta.name;
  ref.uid = meta.uid;
  ref.resource_version = meta.resource_version;
  if (ref.kind.empty() || ref.name.empty()) {
    return absl::InvalidArgumentError("object reference needs the object's kind and metadata.name");
  }
  return ref;
}

std::string EventJson(const EventOccurrence& occurrence, const EventRecorderOptions& options,
                      absl::string_view ns, absl::string_view name, absl::Time first, int64_t count,
                      absl::Time last) {
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("apiVersion", "events.k8s.io/v1", a);
  doc.AddMember("kind", "Event", a);
  rapidjson::Value& metadata = ObjectMember(doc, "metadata", a);
  SetStringMember(metadata, "name", name, a);
  SetStringMember(metadata, "namespace", ns, a);
  SetStringMember(doc, "eventTime", FormatMicroTime(first), a);
  SetStringMember(doc, "reportingController", options.reporting_controller, a);
  SetStringMember(doc, "reportingInstance", options.reporting_instance, a);
  SetStringMember(doc, "type", EventTypeName(occurrence.type), a);
  SetStringMember(doc, "reason", Truncated(occurrence.reason, kMaxReasonBytes), a);
  SetStringMember(doc, "action", Truncated(occurrence.action, kMaxReasonBytes), a);
  SetStringMember(doc, "note", Truncated(occurrence.note, kMaxNoteBytes), a);
  doc.AddMember("regarding", ReferenceValue(occurrence.regarding, a), a);
  if (count > 1) doc.AddMember("series", SeriesValue(count, last, a), a);
  return ToJson(doc);
}

PlannedEventWrite EventAggregator::Plan(const EventOccurrence& occurrence, absl::Time now) {
  const std::string key = AggregationKey(occurrence);
  auto it = series_.find(key);
  if (it != series_.end() && now - it->second.last < options_.aggregation_window) {
    Series& series = it->second;
    ++series.count;
    series.last = now;
    rapidjson::Document patch(rapidjson::kObjectType);
    patch.AddMember("series", SeriesValue(series.count, now, patch.GetAllocator()),
                    patch.GetAllocator());
    return {.kind = PlannedEventWrite::Kind::kUpdateSeries,
            .ns = series.ns,
            .name = series.name,
            .create_json = EventJson(occurrence, options_, series.ns, series.name, series.first,
                                     series.count, now),
            .patch_json = ToJson(patch)};
  }
  if (it == series_.end() && series_.size() >= options_.max_tracked_series) ForgetOldest();
  // client-go names Events <object>.<hex of the time>; the sequence keeps two events of
  // the same instant apart.
  const uint64_t unique = static_cast<uint64_t>(absl::ToUnixNanos(now)) + (sequence_++ % 1000);
  Series series{.ns = EventNamespace(occurrence.regarding),
                .name = absl::StrFormat("%s.%x", occurrence.regarding.name, unique),
                .first = now,
                .last = now,
                .count = 1,
                .occurrence = occurrence};
  PlannedEventWrite write{
      .kind = PlannedEventWrite::Kind::kCreate,
      .ns = series.ns,
      .name = series.name,
      .create_json = EventJson(occurrence, options_, series.ns, series.name, now, 1, now)};
  series_[key] = std::move(series);
  return write;
}

void EventAggregator::ForgetOldest() {
  auto oldest = series_.begin();
  for (auto it = series_.begin(); it != series_.end(); ++it) {
    if (it->second.last < oldest->second.last) oldest = it;
  }
  if (oldest != series_.end()) series_.erase(oldest);
}

EventRecorder::EventRecorder(Client& client, EventRecorderOptions options, common::Clock* clock)
    : client_(client),
      options_(std::move(options)),
      clock_(clock),
      aggregator_(options_),
      writer_([this] { WriteLoop(); }) {}

EventRecorder::~EventRecorder() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  writer_.join();
}

void EventRecorder::Record(const ObjectReference& regarding, EventType type,
                           absl::string_view reason, absl::string_view action,
                           absl::string_view note) {
  EventOccurrence occurrence{.regarding = regarding,
                             .type = type,
                             .reason = std::string(reason),
                             .action = std::string(action),
                             .note = std::string(note)};
  const absl::Time now = clock_->Now();
  absl::MutexLock lock(&mutex_);
  if (pending_.size() >= options_.max_pending) {
    ++dropped_;
    return;
  }
  pending_.push_back(aggregator_.Plan(occurrence, now));
}

bool EventRecorder::Flush(absl::Duration timeout) {
  absl::MutexLock lock(&mutex_);
  auto idle = [this]() ABSL_SHARED_LOCKS_REQUIRED(mutex_) { return pending_.empty() && !writing_; };
  return mutex_.AwaitWithTimeout(absl::Condition(&idle), timeout);
}

uint64_t EventRecorder::dropped() {
  absl::MutexLock lock(&mutex_);
  return dropped_;
}

uint64_t EventRecorder::failed() {
  absl::MutexLock lock(&mutex_);
  return failed_;
}

void EventRecorder::Fail(const absl::Status& status) {
  {
    absl::MutexLock lock(&mutex_);
    ++failed_;
  }
  if (options_.on_error) {
    options_.on_error(status);
  } else {
    DefaultOnError(status);
  }
}

void EventRecorder::Write(const PlannedEventWrite& write) {
  absl::Status status;
  if (write.kind == PlannedEventWrite::Kind::kUpdateSeries) {
    status = client_.MergePatch(EventsV1(), write.ns, write.name, write.patch_json).status();
    if (!absl::IsNotFound(status)) {
      if (!status.ok()) Fail(status);
      return;
    }
  }
  status = client_.Create(EventsV1(), write.ns, write.create_json).status();
  if (!status.ok()) Fail(status);
}

void EventRecorder::WriteLoop() {
  while (true) {
    PlannedEventWrite write;
    {
      absl::MutexLock lock(&mutex_);
      auto ready = [this]() ABSL_SHARED_LOCKS_REQUIRED(mutex_) {
        return !pending_.empty() || stopping_;
      };
      mutex_.Await(absl::Condition(&ready));
      if (pending_.empty()) return;  // stopping, and everything written
      write = std::move(pending_.front());
      pending_.pop_front();
      writing_ = true;
    }
    Write(write);
    absl::MutexLock lock(&mutex_);
    writing_ = false;
  }
}

}  // namespace tidepool::k8s
