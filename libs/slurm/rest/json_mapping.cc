#include "slurm/rest/json_mapping.h"

// RapidJSON in a namespace of its own, so this file may build it with SSE2 whitespace
// skipping (x86-64 baseline) without two definitions of the same templates elsewhere.
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#define RAPIDJSON_NAMESPACE tidepool_rest_rapidjson

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace rapidjson = ::tidepool_rest_rapidjson;

namespace tidepool::slurm::rest {
namespace {

using rapidjson::Value;

// ---------------------------------------------------------------------------------
// Shared pieces.

const char* TypeName(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "a boolean";
    case rapidjson::kObjectType:
      return "an object";
    case rapidjson::kArrayType:
      return "an array";
    case rapidjson::kStringType:
      return "a string";
    case rapidjson::kNumberType:
      return "a number";
  }
  return "something else";
}

std::optional<absl::Time> TimeFromUnix(int64_t seconds) {
  if (seconds <= 0) return std::nullopt;
  return absl::FromUnixSeconds(seconds);
}

// A Slurm number: plain, or {"set":…,"infinite":…,"number":…}.
struct SlurmNumber {
  bool set = false;
  bool infinite = false;
  int64_t number = 0;
  std::optional<int64_t> Value() const {
    if (!set || infinite) return std::nullopt;
    return number;
  }
};

bool NumberToInt(const Value& v, int64_t* out) {
  if (v.IsInt64()) {
    *out = v.GetInt64();
  } else if (v.IsUint64()) {
    *out = static_cast<int64_t>(std::min<uint64_t>(v.GetUint64(), INT64_MAX));
  } else if (v.IsDouble()) {
    const double d = v.GetDouble();
    if (!(d > -9.2e18 && d < 9.2e18)) return false;
    *out = static_cast<int64_t>(d);
  } else {
    return false;
  }
  return true;
}

absl::Status ParseDocument(absl::string_view body, const CallContext& call,
                           rapidjson::Document* doc) {
  doc->Parse(body.data(), body.size());
  if (doc->HasParseError()) {
    return MalformedReply(
        call, absl::StrCat("not JSON (", rapidjson::GetParseError_En(doc->GetParseError()),
                           " at offset ", doc->GetErrorOffset(), ")"));
  }
  if (!doc->IsObject()) {
    return MalformedReply(call, absl::StrCat("expected an object, got ", TypeName(*doc)));
  }
  return absl::OkStatus();
}

// Reads members of one JSON object into typed fields. The first problem is kept
// (status()); later reads after a problem do nothing. Missing members and null leave
// the target as it is.
class ObjectReader {
 public:
  ObjectReader(const Value& object, std::string path) : object_(object), path_(std::move(path)) {}

  const Value* Find(const char* key) {
    if (!status_.ok() || !object_.IsObject()) return nullptr;
    auto it = object_.FindMember(key);
    if (it == object_.MemberEnd() || it->value.IsNull()) return nullptr;
    return &it->value;
  }

  void String(const char* key, std::string* out) {
    const Value* v = Find(key);
    if (v == nullptr) return;
    if (!v->IsString()) return Fail(key, "a string", *v);
    out->assign(v->GetString(), v->GetStringLength());
  }

  void Bool(const char* key, bool* out) {
    const Value* v = Find(key);
    if (v == nullptr) return;
    if (!v->IsBool()) return Fail(key, "a boolean", *v);
    *out = v->GetBool();
  }

  std::optional<SlurmNumber> Number(const char* key) {
    const Value* v = Find(key);
    if (v == nullptr) return std::nullopt;
    SlurmNumber n;
    if (NumberToInt(*v, &n.number)) {
      n.set = true;
      return n;
    }
    if (v->IsObject()) {
      ObjectReader inner(*v, absl::StrCat(path_, ".", key));
      inner.Bool("set", &n.set);
      inner.Bool("infinite", &n.infinite);
      if (const Value* number = inner.Find("number"); number != nullptr) {
        if (!NumberToInt(*number, &n.number)) inner.Fail("number", "a number", *number);
      }
      if (!inner.status().ok()) {
        status_ = inner.status();
        return std::nullopt;
      }
      return n;
    }
    Fail(key, "a number or a number object", *v);
    return std::nullopt;
  }

  void Int(const char* key, int64_t* out) {
    if (std::optional<SlurmNumber> n = Number(key); n.has_value() && n->Value().has_value()) {
      *out = *n->Value();
    }
  }
  void OptInt(const char* key, std::optional<int64_t>* out) {
    if (std::optional<SlurmNumber> n = Number(key); n.has_value()) *out = n->Value();
  }
  void OptTime(const char* key, std::optional<absl::Time>* out) {
    if (std::optional<SlurmNumber> n = Number(key); n.has_value()) {
      *out = n->Value().has_value() ? TimeFromUnix(*n->Value()) : std::nullopt;
    }
  }

  // An array of strings; a single string is taken as one entry ("" as none).
  void Strings(const char* key, std::vector<std::string>* out) {
    const Value* v = Find(key);
    if (v == nullptr) return;
    out->clear();
    if (v->IsString()) {
      if (v->GetStringLength() > 0) out->emplace_back(v->GetString(), v->GetStringLength());
      return;
    }
    if (!v->IsArray()) return Fail(key, "an array of strings", *v);
    for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
      const Value& item = (*v)[i];
      if (!item.IsString()) {
        return Fail(absl::StrCat(key, "[", i, "]").c_str(), "a string", item);
      }
      out->emplace_back(item.GetString(), item.GetStringLength());
    }
  }

  // A member that must be an object (nullptr if missing or after an error).
  const Value* Object(const char* key) {
    const Value* v = Find(key);
    if (v == nullptr) return nullptr;
    if (!v->IsObject()) {
      Fail(key, "an object", *v);
      return nullptr;
    }
    return v;
  }

  // A member that must be an array; a missing one is an error when `required`.
  const Value* Array(const char* key, bool required) {
    const Value* v = Find(key);
    if (v == nullptr) {
      if (required && status_.ok()) {
        status_ = absl::InvalidArgumentError(absl::StrCat(Path(key), ": missing"));
      }
      return nullptr;
    }
    if (!v->IsArray()) {
      Fail(key, "an array", *v);
      return nullptr;
    }
    return v;
  }

  std::string Path(const char* key) const {
    return path_.empty() ? std::string(key) : absl::StrCat(path_, ".", key);
  }
  const absl::Status& status() const { return status_; }
  void SetError(absl::Status status) {
    if (status_.ok()) status_ = std::move(status);
  }

 private:
  void Fail(const char* key, const char* expected, const Value& got) {
    SetError(absl::InvalidArgumentError(
        absl::StrCat(Path(key), ": expected ", expected, ", got ", TypeName(got))));
  }

  const Value& object_;
  std::string path_;
  absl::Status status_;
};

std::vector<SlurmError> ReadErrors(const Value& doc) {
  std::vector<SlurmError> errors;
  if (!doc.IsObject()) return errors;
  auto it = doc.FindMember("errors");
  if (it == doc.MemberEnd() || !it->value.IsArray()) return errors;
  for (const Value& item : it->value.GetArray()) {
    SlurmError e;
    if (item.IsObject()) {
      ObjectReader r(item, "errors[]");
      r.Int("error_number", &e.error_number);
      r.String("error", &e.error);
      r.String("description", &e.description);
      r.String("source", &e.source);
    } else if (item.IsString()) {
      e.description = item.GetString();
    }
    errors.push_back(std::move(e));
  }
  return errors;
}

// Parses `body`, checks errors[] and returns the document for mapping.
absl::Status ParseChecked(absl::string_view body, const CallContext& call,
                          rapidjson::Document* doc) {
  if (absl::Status s = ParseDocument(body, call, doc); !s.ok()) return s;
  std::vector<SlurmError> errors = ReadErrors(*doc);
  if (!errors.empty()) return SlurmErrorStatus(call, errors);
  return absl::OkStatus();
}

absl::Status Mapped(const CallContext& call, const absl::Status& status) {
  if (status.ok()) return status;
  return MalformedReply(call, status.message());
}

// ---------------------------------------------------------------------------------
// Nodes: a streaming (SAX) reader, since node lists are the large replies.

enum class NodeField : uint8_t {
  kUnknown,
  kName,
  kState,
  kReason,
  kReasonSetByUser,
  kReasonChangedAt,
  kComment,
  kCpus,
  kAllocCpus,
  kRealMemory,
  kAllocMemory,
  kGres,
  kGresUsed,
  kFeatures,
  kActiveFeatures,
  kPartitions,
  kAddress,
  kHostname,
  kVersion,
};

enum class FieldKind : uint8_t { kString, kInt, kTime, kStrings, kState };

FieldKind KindOf(NodeField f) {
  switch (f) {
    case NodeField::kReasonChangedAt:
      return FieldKind::kTime;
    case NodeField::kCpus:
    case NodeField::kAllocCpus:
    case NodeField::kRealMemory:
    case NodeField::kAllocMemory:
      return FieldKind::kInt;
    case NodeField::kFeatures:
    case NodeField::kActiveFeatures:
    case NodeField::kPartitions:
      return FieldKind::kStrings;
    case NodeField::kState:
      return FieldKind::kState;
    default:
      return FieldKind::kString;
  }
}

// `key` (of the same length) is `literal`: the first byte decides most misses.
inline bool Is(absl::string_view key, absl::string_view literal) {
  return key[0] == literal[0] && key == literal;
}

NodeField NodeFieldOf(absl::string_view key) {
  // Dispatch on length first: most keys of a node are ones the model does not keep.
  switch (key.size()) {
    case 4:
      if (Is(key, "name")) return NodeField::kName;
      if (Is(key, "cpus")) return NodeField::kCpus;
      if (Is(key, "gres")) return NodeField::kGres;
      break;
    case 5:
      if (Is(key, "state")) return NodeField::kState;
      break;
    case 6:
      if (Is(key, "reason")) return NodeField::kReason;
      break;
    case 7:
      if (Is(key, "comment")) return NodeField::kComment;
      if (Is(key, "address")) return NodeField::kAddress;
      if (Is(key, "version")) return NodeField::kVersion;
      break;
    case 8:
      if (Is(key, "features")) return NodeField::kFeatures;
      if (Is(key, "hostname")) return NodeField::kHostname;
      break;
    case 9:
      if (Is(key, "gres_used")) return NodeField::kGresUsed;
      break;
    case 10:
      if (Is(key, "alloc_cpus")) return NodeField::kAllocCpus;
      if (Is(key, "partitions")) return NodeField::kPartitions;
      break;
    case 11:
      if (Is(key, "real_memory")) return NodeField::kRealMemory;
      break;
    case 12:
      if (Is(key, "alloc_memory")) return NodeField::kAllocMemory;
      break;
    case 15:
      if (Is(key, "active_features")) return NodeField::kActiveFeatures;
      break;
    case 17:
      if (Is(key, "reason_changed_at")) return NodeField::kReasonChangedAt;
      break;
    case 18:
      if (Is(key, "reason_set_by_user")) return NodeField::kReasonSetByUser;
      break;
    default:
      break;
  }
  return NodeField::kUnknown;
}

const char* NodeFieldName(NodeField f) {
  switch (f) {
    case NodeField::kName:
      return "name";
    case NodeField::kState:
      return "state";
    case NodeField::kReason:
      return "reason";
    case NodeField::kReasonSetByUser:
      return "reason_set_by_user";
    case NodeField::kReasonChangedAt:
      return "reason_changed_at";
    case NodeField::kComment:
      return "comment";
    case NodeField::kCpus:
      return "cpus";
    case NodeField::kAllocCpus:
      return "alloc_cpus";
    case NodeField::kRealMemory:
      return "real_memory";
    case NodeField::kAllocMemory:
      return "alloc_memory";
    case NodeField::kGres:
      return "gres";
    case NodeField::kGresUsed:
      return "gres_used";
    case NodeField::kFeatures:
      return "features";
    case NodeField::kActiveFeatures:
      return "active_features";
    case NodeField::kPartitions:
      return "partitions";
    case NodeField::kAddress:
      return "address";
    case NodeField::kHostname:
      return "hostname";
    case NodeField::kVersion:
      return "version";
    case NodeField::kUnknown:
      break;
  }
  return "?";
}

// The reply's shape, as frames on a stack:
//   kRoot {"nodes": kNodes [ kNode {field: value | kNumber {...} | kList [...]} ],
//          "last_update": number | kNumber {...}, "errors": kErrors [ kError {...} ]}
// Anything else is skipped whole (skip_depth_).
class NodesHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NodesHandler> {
 public:
  enum class Frame : uint8_t { kRoot, kNodes, kNode, kNumber, kList, kErrors, kError };

  bool Null() { return skip_depth_ > 0 || Scalar(nullptr, 0, false, Kind::kNull); }
  bool Bool(bool b) { return skip_depth_ > 0 || Scalar(nullptr, 0, b, Kind::kBool); }
  bool Int(int i) { return Integer(i); }
  bool Uint(unsigned u) { return Integer(u); }
  bool Int64(int64_t i) { return Integer(i); }
  bool Uint64(uint64_t u) {
    return Integer(static_cast<int64_t>(std::min<uint64_t>(u, INT64_MAX)));
  }
  bool Double(double d) {
    if (skip_depth_ > 0) return true;
    // Only counts and times are kept: a fraction is dropped, a huge value clamped.
    if (!(d > -9.2e18)) return Integer(INT64_MIN);
    if (!(d < 9.2e18)) return Integer(INT64_MAX);
    return Integer(static_cast<int64_t>(d));
  }
  bool String(const char* s, rapidjson::SizeType n, bool) {
    if (skip_depth_ > 0) return true;
    int_value_ = 0;
    return Scalar(s, n, false, Kind::kString);
  }
  bool Key(const char* s, rapidjson::SizeType n, bool) {
    if (skip_depth_ > 0) return true;
    const absl::string_view key(s, n);
    switch (Top()) {
      case Frame::kNode:
        field_ = NodeFieldOf(key);
        break;
      case Frame::kRoot:
      case Frame::kNumber:
      case Frame::kError:
        key_ = KeyOf(key);
        break;
      default:
        break;
    }
    return true;
  }

  bool StartObject() {
    if (skip_depth_ > 0) return ++skip_depth_, true;
    if (stack_.empty()) return Push(Frame::kRoot);
    switch (Top()) {
      case Frame::kRoot:
        if (key_ == KeyId::kLastUpdate) {
          number_ = {};
          number_target_ = NodeField::kUnknown;
          return Push(Frame::kNumber);
        }
        break;
      case Frame::kNodes:
        reply_.nodes.emplace_back();
        field_ = NodeField::kUnknown;
        return Push(Frame::kNode);
      case Frame::kNode: {
        const FieldKind kind = KindOf(field_);
        if (field_ != NodeField::kUnknown &&
            (kind == FieldKind::kInt || kind == FieldKind::kTime)) {
          number_ = {};
          number_target_ = field_;
          return Push(Frame::kNumber);
        }
        if (field_ != NodeField::kUnknown) return TypeError("an object");
        break;
      }
      case Frame::kErrors:
        errors_.emplace_back();
        return Push(Frame::kError);
      case Frame::kList:
        return TypeError("an object", "[]");
      default:
        break;
    }
    skip_depth_ = 1;
    return true;
  }

  bool EndObject(rapidjson::SizeType) {
    if (skip_depth_ > 0) return --skip_depth_, true;
    const Frame frame = Top();
    stack_.pop_back();
    if (frame == Frame::kNumber) {
      const std::optional<int64_t> value =
          number_.set && !number_.infinite ? std::optional<int64_t>(number_.number) : std::nullopt;
      if (Top() == Frame::kRoot) {
        if (value.has_value()) reply_.last_update = absl::FromUnixSeconds(*value);
      } else {
        StoreNumber(number_target_, value);
      }
    }
    return true;
  }

  bool StartArray() {
    if (skip_depth_ > 0) return ++skip_depth_, true;
    if (stack_.empty()) return Error("an array at the top");
    switch (Top()) {
      case Frame::kRoot:
        if (key_ == KeyId::kNodes) {
          reply_.nodes.reserve(expected_nodes_);
          return Push(Frame::kNodes);
        }
        if (key_ == KeyId::kErrors) return Push(Frame::kErrors);
        break;
      case Frame::kNode: {
        if (field_ == NodeField::kUnknown) break;
        const FieldKind kind = KindOf(field_);
        if (kind == FieldKind::kStrings || kind == FieldKind::kState) {
          ListFor(field_)->clear();
          return Push(Frame::kList);
        }
        return TypeError("an array");
      }
      case Frame::kList:
        return TypeError("an array", "[]");
      default:
        break;
    }
    skip_depth_ = 1;
    return true;
  }

  bool EndArray(rapidjson::SizeType) {
    if (skip_depth_ > 0) return --skip_depth_, true;
    const Frame frame = Top();
    stack_.pop_back();
    if (frame == Frame::kList && field_ == NodeField::kState) {
      Node& node = reply_.nodes.back();
      for (const std::string& name : state_names_) node.state.AddName(name);
      state_names_.clear();
    }
    return true;
  }

  // A guess at the node count, to allocate the list once (a node in a reply takes
  // 2.5–3 KB of pretty-printed JSON; a smaller guess only costs a reallocation).
  void ExpectBytes(size_t bytes) { expected_nodes_ = bytes / 3072; }

  NodeList& reply() { return reply_; }
  std::vector<SlurmError>& errors() { return errors_; }
  const std::string& error() const { return error_; }
  bool saw_nodes() const { return saw_nodes_; }

 private:
  enum class Kind : uint8_t { kNull, kBool, kInt, kString };

  // The keys that matter outside node objects (of the reply, number objects, errors[]).
  enum class KeyId : uint8_t {
    kOther,
    kNodes,
    kLastUpdate,
    kErrors,
    kSet,
    kInfinite,
    kNumber,
    kErrorNumber,
    kError,
    kDescription,
    kSource,
  };
  static KeyId KeyOf(absl::string_view key) {
    switch (key.empty() ? '\0' : key[0]) {
      case 'n':
        if (key == "number") return KeyId::kNumber;
        if (key == "nodes") return KeyId::kNodes;
        break;
      case 's':
        if (key == "set") return KeyId::kSet;
        if (key == "source") return KeyId::kSource;
        break;
      case 'i':
        if (key == "infinite") return KeyId::kInfinite;
        break;
      case 'l':
        if (key == "last_update") return KeyId::kLastUpdate;
        break;
      case 'e':
        if (key == "errors") return KeyId::kErrors;
        if (key == "error") return KeyId::kError;
        if (key == "error_number") return KeyId::kErrorNumber;
        break;
      case 'd':
        if (key == "description") return KeyId::kDescription;
        break;
      default:
        break;
    }
    return KeyId::kOther;
  }

  Frame Top() const { return stack_.back(); }
  bool Push(Frame f) {
    if (f == Frame::kNodes) saw_nodes_ = true;
    stack_.push_back(f);
    return true;
  }

  bool Integer(int64_t v) {
    if (skip_depth_ > 0) return true;
    int_value_ = v;
    return Scalar(nullptr, 0, false, Kind::kInt);
  }

  std::vector<std::string>* ListFor(NodeField f) {
    Node& node = reply_.nodes.back();
    switch (f) {
      case NodeField::kFeatures:
        return &node.features;
      case NodeField::kActiveFeatures:
        return &node.active_features;
      case NodeField::kPartitions:
        return &node.partitions;
      default:
        return &state_names_;
    }
  }

  std::string* StringFor(NodeField f) {
    Node& node = reply_.nodes.back();
    switch (f) {
      case NodeField::kName:
        return &node.name;
      case NodeField::kReason:
        return &node.reason;
      case NodeField::kReasonSetByUser:
        return &node.reason_set_by_user;
      case NodeField::kComment:
        return &node.comment;
      case NodeField::kGres:
        return &node.gres;
      case NodeField::kGresUsed:
        return &node.gres_used;
      case NodeField::kAddress:
        return &node.address;
      case NodeField::kHostname:
        return &node.hostname;
      case NodeField::kVersion:
        return &node.version;
      default:
        return nullptr;
    }
  }

  void StoreNumber(NodeField f, std::optional<int64_t> value) {
    Node& node = reply_.nodes.back();
    switch (f) {
      case NodeField::kReasonChangedAt:
        node.reason_changed_at = value.has_value() ? TimeFromUnix(*value) : std::nullopt;
        return;
      case NodeField::kCpus:
        node.cpus = value.value_or(0);
        return;
      case NodeField::kAllocCpus:
        node.alloc_cpus = value.value_or(0);
        return;
      case NodeField::kRealMemory:
        node.real_memory_mb = value.value_or(0);
        return;
      case NodeField::kAllocMemory:
        node.alloc_memory_mb = value.value_or(0);
        return;
      default:
        return;
    }
  }

  bool Scalar(const char* s, rapidjson::SizeType n, bool b, Kind kind) {
    switch (Top()) {
      case Frame::kRoot:
        if (key_ == KeyId::kLastUpdate && kind == Kind::kInt) {
          reply_.last_update = absl::FromUnixSeconds(int_value_);
        }
        return true;
      case Frame::kNode: {
        if (field_ == NodeField::kUnknown || kind == Kind::kNull) return true;
        switch (KindOf(field_)) {
          case FieldKind::kString:
            if (kind != Kind::kString) return TypeError(KindName(kind));
            StringFor(field_)->assign(s, n);
            return true;
          case FieldKind::kInt:
          case FieldKind::kTime:
            if (kind != Kind::kInt) return TypeError(KindName(kind));
            StoreNumber(field_, int_value_);
            return true;
          case FieldKind::kStrings:
          case FieldKind::kState:
            // A single string stands for a one-entry list ("IDLE", "f1,f2").
            if (kind != Kind::kString) return TypeError(KindName(kind));
            if (field_ == NodeField::kState) {
              reply_.nodes.back().state.AddName(absl::string_view(s, n));
            } else {
              std::vector<std::string>* list = ListFor(field_);
              list->clear();
              for (absl::string_view part :
                   absl::StrSplit(absl::string_view(s, n), ',', absl::SkipEmpty())) {
                list->emplace_back(part);
              }
            }
            return true;
        }
        return true;
      }
      case Frame::kNumber:
        if (key_ == KeyId::kSet) {
          if (kind != Kind::kBool) return TypeError(KindName(kind), ".set");
          number_.set = b;
        } else if (key_ == KeyId::kInfinite) {
          if (kind != Kind::kBool) return TypeError(KindName(kind), ".infinite");
          number_.infinite = b;
        } else if (key_ == KeyId::kNumber) {
          if (kind != Kind::kInt) return TypeError(KindName(kind), ".number");
          number_.number = int_value_;
        }
        return true;
      case Frame::kList:
        if (kind != Kind::kString) return TypeError(KindName(kind), "[]");
        ListFor(field_)->emplace_back(s, n);
        return true;
      case Frame::kError: {
        SlurmError& e = errors_.back();
        if (key_ == KeyId::kErrorNumber && kind == Kind::kInt) e.error_number = int_value_;
        if (kind == Kind::kString) {
          if (key_ == KeyId::kError) e.error.assign(s, n);
          if (key_ == KeyId::kDescription) e.description.assign(s, n);
          if (key_ == KeyId::kSource) e.source.assign(s, n);
        }
        return true;
      }
      case Frame::kErrors:
        if (kind == Kind::kString) errors_.emplace_back().description.assign(s, n);
        return true;
      case Frame::kNodes:
        return Error("nodes[]: expected objects");
    }
    return true;
  }

  static const char* KindName(Kind kind) {
    switch (kind) {
      case Kind::kNull:
        return "null";
      case Kind::kBool:
        return "a boolean";
      case Kind::kInt:
        return "a number";
      case Kind::kString:
        return "a string";
    }
    return "?";
  }

  bool TypeError(const char* got, const char* inner = "") {
    const size_t index = reply_.nodes.empty() ? 0 : reply_.nodes.size() - 1;
    std::string where = absl::StrCat("nodes[", index, "].", NodeFieldName(field_), inner);
    if (*inner == '.') {
      return Error(absl::StrCat(where, ": expected ",
                                std::string_view(inner) == ".number" ? "a number" : "a boolean",
                                ", got ", got));
    }
    if (KindOf(field_) == FieldKind::kInt || KindOf(field_) == FieldKind::kTime) {
      return Error(absl::StrCat(where, ": expected a number or a number object, got ", got));
    }
    if (KindOf(field_) == FieldKind::kString) {
      return Error(absl::StrCat(where, ": expected a string, got ", got));
    }
    return Error(absl::StrCat(where, ": expected an array of strings, got ", got));
  }
  bool Error(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }

  std::vector<Frame> stack_;
  int skip_depth_ = 0;
  KeyId key_ = KeyId::kOther;
  NodeField field_ = NodeField::kUnknown;
  NodeField number_target_ = NodeField::kUnknown;
  SlurmNumber number_;
  int64_t int_value_ = 0;
  std::vector<std::string> state_names_;
  NodeList reply_;
  std::vector<SlurmError> errors_;
  std::string error_;
  bool saw_nodes_ = false;
  size_t expected_nodes_ = 0;
};

// ---------------------------------------------------------------------------------
// Jobs, partitions, reservations, ping, diag: small replies, read from a document.

absl::Status ReadJob(const Value& v, std::string path, Job* job) {
  ObjectReader r(v, std::move(path));
  int64_t id = 0;
  r.Int("job_id", &id);
  if (id < 0 || id > UINT32_MAX) {
    r.SetError(absl::InvalidArgumentError(absl::StrCat(r.Path("job_id"), ": out of range")));
  }
  job->id = static_cast<JobId>(id);
  r.String("name", &job->name);
  r.Strings("job_state", &job->state);
  r.String("nodes", &job->nodes);
  r.String("partition", &job->partition);
  r.String("user_name", &job->user);
  r.String("state_reason", &job->reason);
  r.OptTime("start_time", &job->start_time);
  r.OptTime("end_time", &job->end_time);
  r.OptInt("time_limit", &job->time_limit_minutes);
  r.String("comment", &job->comment);
  if (const Value* exit = r.Find("exit_code"); exit != nullptr) {
    if (exit->IsObject()) {
      ObjectReader e(*exit, r.Path("exit_code"));
      e.Strings("status", &job->exit_code.status);
      e.OptInt("return_code", &job->exit_code.return_code);
      if (const Value* signal = e.Object("signal"); signal != nullptr) {
        ObjectReader s(*signal, e.Path("signal"));
        s.OptInt("id", &job->exit_code.signal);
        if (!s.status().ok()) e.SetError(s.status());
      }
      if (!e.status().ok()) r.SetError(e.status());
    } else {
      // Older shapes: a plain number.
      std::optional<int64_t> code;
      r.OptInt("exit_code", &code);
      job->exit_code.return_code = code;
    }
  }
  return r.status();
}

absl::Status ReadPartition(const Value& v, std::string path, Partition* p) {
  ObjectReader r(v, std::move(path));
  r.String("name", &p->name);
  if (const Value* nodes = r.Object("nodes"); nodes != nullptr) {
    ObjectReader n(*nodes, r.Path("nodes"));
    n.String("configured", &p->nodes);
    n.Int("total", &p->total_nodes);
    if (!n.status().ok()) r.SetError(n.status());
  }
  if (const Value* cpus = r.Object("cpus"); cpus != nullptr) {
    ObjectReader c(*cpus, r.Path("cpus"));
    c.Int("total", &p->total_cpus);
    if (!c.status().ok()) r.SetError(c.status());
  }
  if (const Value* part = r.Object("partition"); part != nullptr) {
    ObjectReader s(*part, r.Path("partition"));
    s.Strings("state", &p->state);
    if (!s.status().ok()) r.SetError(s.status());
  }
  if (r.Find("flags") != nullptr) {
    std::vector<std::string> flags;
    r.Strings("flags", &flags);
    p->is_default = std::find(flags.begin(), flags.end(), "DEFAULT") != flags.end();
  }
  if (const Value* max = r.Object("maximums"); max != nullptr) {
    ObjectReader m(*max, r.Path("maximums"));
    m.OptInt("time", &p->max_time_minutes);
    if (!m.status().ok()) r.SetError(m.status());
  }
  return r.status();
}

absl::Status ReadReservation(const Value& v, std::string path, Reservation* res) {
  ObjectReader r(v, std::move(path));
  r.String("name", &res->name);
  r.String("node_list", &res->node_list);
  r.Int("node_count", &res->node_count);
  r.OptTime("start_time", &res->start_time);
  r.OptTime("end_time", &res->end_time);
  r.Strings("flags", &res->flags);
  r.String("users", &res->users);
  r.String("partition", &res->partition);
  return r.status();
}

template <typename T, typename ReadFn>
absl::StatusOr<std::vector<T>> ReadList(const Value& doc, const char* key, const CallContext& call,
                                        ReadFn read) {
  ObjectReader r(doc, "");
  const Value* items = r.Array(key, /*required=*/true);
  if (items == nullptr) return Mapped(call, r.status());
  std::vector<T> out;
  out.reserve(items->Size());
  for (rapidjson::SizeType i = 0; i < items->Size(); ++i) {
    const Value& item = (*items)[i];
    const std::string path = absl::StrCat(key, "[", i, "]");
    if (!item.IsObject()) {
      return MalformedReply(call, absl::StrCat(path, ": expected an object, got ", TypeName(item)));
    }
    T value;
    if (absl::Status s = read(item, path, &value); !s.ok()) return Mapped(call, s);
    out.push_back(std::move(value));
  }
  return out;
}

// ---------------------------------------------------------------------------------
// Request bodies.

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteString(Writer& w, const char* key, absl::string_view value) {
  w.Key(key);
  w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void WriteStrings(Writer& w, const char* key, const std::vector<std::string>& values) {
  w.Key(key);
  w.StartArray();
  for (const std::string& v : values)
    w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
  w.EndArray();
}

void WriteNumber(Writer& w, const char* key, int64_t value) {
  w.Key(key);
  w.StartObject();
  w.Key("set");
  w.Bool(true);
  w.Key("infinite");
  w.Bool(false);
  w.Key("number");
  w.Int64(value);
  w.EndObject();
}

}  // namespace

// ---------------------------------------------------------------------------------

std::vector<SlurmError> ErrorsInBody(absl::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) return {};
  return ReadErrors(doc);
}

// RapidJSON's SSE2 scanning reads whole aligned 16-byte blocks, up to 15 bytes past the
// terminating NUL: the buffer is kept that much larger.
constexpr size_t kSimdPadding = 16;

absl::StatusOr<NodeList> ParseNodesReply(absl::string_view body, const CallContext& call) {
  std::string copy;
  copy.reserve(body.size() + kSimdPadding);
  copy.append(body.data(), body.size());
  return ParseNodesReply(std::move(copy), call);
}

absl::StatusOr<NodeList> ParseNodesReply(std::string&& body, const CallContext& call) {
  NodesHandler handler;
  handler.ExpectBytes(body.size());
  rapidjson::Reader reader;
  // Parsed in place: the reader hands out strings inside `body` instead of copying them.
  std::string buffer = std::move(body);
  if (buffer.capacity() < buffer.size() + kSimdPadding) {
    buffer.reserve(buffer.size() + kSimdPadding);
  }
  rapidjson::InsituStringStream stream(buffer.data());
  const rapidjson::ParseResult result =
      reader.Parse<rapidjson::kParseInsituFlag | rapidjson::kParseStopWhenDoneFlag>(stream,
                                                                                    handler);
  if (!result) {
    if (!handler.error().empty()) return MalformedReply(call, handler.error());
    if (!handler.errors().empty()) return SlurmErrorStatus(call, handler.errors());
    return MalformedReply(
        call, absl::StrCat("not JSON (", rapidjson::GetParseError_En(result.Code()), " at offset ",
                           result.Offset(), ")"));
  }
  if (!handler.errors().empty()) return SlurmErrorStatus(call, handler.errors());
  if (!handler.saw_nodes()) return MalformedReply(call, "nodes: missing");
  NodeList& reply = handler.reply();
  for (size_t i = 0; i < reply.nodes.size(); ++i) {
    if (reply.nodes[i].name.empty()) {
      return MalformedReply(call, absl::StrCat("nodes[", i, "].name: missing"));
    }
  }
  return std::move(reply);
}

absl::StatusOr<JobList> ParseJobsReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  absl::StatusOr<std::vector<Job>> jobs = ReadList<Job>(doc, "jobs", call, ReadJob);
  if (!jobs.ok()) return jobs.status();
  JobList list;
  list.jobs = *std::move(jobs);
  ObjectReader r(doc, "");
  std::optional<absl::Time> last_update;
  r.OptTime("last_update", &last_update);
  if (!r.status().ok()) return Mapped(call, r.status());
  if (last_update.has_value()) list.last_update = *last_update;
  return list;
}

absl::StatusOr<SubmitResult> ParseSubmitReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  ObjectReader r(doc, "");
  SubmitResult result;
  int64_t id = -1;
  r.Int("job_id", &id);
  r.String("step_id", &result.step_id);
  if (const Value* warnings = r.Array("warnings", false); warnings != nullptr) {
    for (const Value& w : warnings->GetArray()) {
      if (w.IsObject() && w.HasMember("description") && w["description"].IsString()) {
        result.warnings.emplace_back(w["description"].GetString());
      }
    }
  }
  if (!r.status().ok()) return Mapped(call, r.status());
  if (id <= 0 || id > UINT32_MAX) return MalformedReply(call, "job_id: missing or out of range");
  result.job_id = static_cast<JobId>(id);
  return result;
}

absl::StatusOr<std::vector<Partition>> ParsePartitionsReply(absl::string_view body,
                                                            const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  return ReadList<Partition>(doc, "partitions", call, ReadPartition);
}

absl::StatusOr<std::vector<Reservation>> ParseReservationsReply(absl::string_view body,
                                                                const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  return ReadList<Reservation>(doc, "reservations", call, ReadReservation);
}

absl::StatusOr<std::vector<PingResult>> ParsePingReply(absl::string_view body,
                                                       const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  return ReadList<PingResult>(doc, "pings", call,
                              [](const Value& v, std::string path, PingResult* p) {
                                ObjectReader r(v, std::move(path));
                                r.String("hostname", &p->hostname);
                                r.Bool("responding", &p->responding);
                                r.Bool("primary", &p->primary);
                                r.Int("latency", &p->latency_us);
                                // Older replies: "pinged": "UP".
                                std::string pinged;
                                r.String("pinged", &pinged);
                                if (pinged == "UP") p->responding = true;
                                return r.status();
                              });
}

absl::StatusOr<DiagInfo> ParseDiagReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  ObjectReader top(doc, "");
  const Value* stats = top.Object("statistics");
  if (stats == nullptr) {
    return Mapped(
        call, top.status().ok() ? absl::InvalidArgumentError("statistics: missing") : top.status());
  }
  ObjectReader r(*stats, "statistics");
  DiagInfo d;
  r.OptTime("req_time", &d.req_time);
  r.Int("server_thread_count", &d.server_thread_count);
  r.Int("agent_queue_size", &d.agent_queue_size);
  r.Int("jobs_submitted", &d.jobs_submitted);
  r.Int("jobs_started", &d.jobs_started);
  r.Int("jobs_completed", &d.jobs_completed);
  r.Int("jobs_canceled", &d.jobs_canceled);
  r.Int("jobs_failed", &d.jobs_failed);
  r.Int("jobs_pending", &d.jobs_pending);
  r.Int("jobs_running", &d.jobs_running);
  r.Int("schedule_cycle_last", &d.schedule_cycle_last_us);
  r.Int("schedule_cycle_max", &d.schedule_cycle_max_us);
  r.Bool("bf_active", &d.backfill_active);
  if (!r.status().ok()) return Mapped(call, r.status());
  return d;
}

absl::Status ParseEmptyReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  return ParseChecked(body, call, &doc);
}

absl::Status ParseSignalReply(absl::string_view body, const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseChecked(body, call, &doc); !s.ok()) return s;
  ObjectReader r(doc, "");
  const Value* status = r.Array("status", false);
  if (!r.status().ok()) return Mapped(call, r.status());
  if (status == nullptr) return absl::OkStatus();
  std::vector<SlurmError> errors;
  for (rapidjson::SizeType i = 0; i < status->Size(); ++i) {
    const Value& item = (*status)[i];
    if (!item.IsObject()) continue;
    ObjectReader s(item, absl::StrCat("status[", i, "]"));
    const Value* error = s.Object("error");
    if (error == nullptr) {
      if (!s.status().ok()) return Mapped(call, s.status());
      continue;
    }
    ObjectReader e(*error, s.Path("error"));
    SlurmError err;
    e.Int("code", &err.error_number);
    e.String("string", &err.error);
    e.String("message", &err.description);
    std::string step;
    s.String("step_id", &step);
    if (!e.status().ok()) return Mapped(call, e.status());
    if (err.error_number != 0) {
      err.source = absl::StrCat("job ", step);
      errors.push_back(std::move(err));
    }
  }
  if (!errors.empty()) return SlurmErrorStatus(call, errors);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> ParseOpenApiVersions(absl::string_view body,
                                                              const CallContext& call) {
  rapidjson::Document doc;
  if (absl::Status s = ParseDocument(body, call, &doc); !s.ok()) return s;
  ObjectReader r(doc, "");
  const Value* paths = r.Object("paths");
  if (paths == nullptr) {
    return Mapped(call,
                  r.status().ok() ? absl::InvalidArgumentError("paths: missing") : r.status());
  }
  std::vector<std::pair<int, std::string>> found;
  for (auto it = paths->MemberBegin(); it != paths->MemberEnd(); ++it) {
    absl::string_view path(it->name.GetString(), it->name.GetStringLength());
    if (!absl::ConsumePrefix(&path, "/slurm/v0.0.")) continue;
    const size_t slash = path.find('/');
    if (slash == absl::string_view::npos) continue;
    int minor = 0;
    if (!absl::SimpleAtoi(path.substr(0, slash), &minor)) continue;
    std::string version = absl::StrCat("v0.0.", minor);
    if (std::find_if(found.begin(), found.end(), [&](const auto& f) { return f.first == minor; }) ==
        found.end()) {
      found.emplace_back(minor, std::move(version));
    }
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> versions;
  for (auto& [minor, version] : found) versions.push_back(std::move(version));
  return versions;
}

absl::string_view NodeUpdateStateName(NodeUpdate::State state) {
  switch (state) {
    case NodeUpdate::State::kNone:
      return "";
    case NodeUpdate::State::kDrain:
      return "DRAIN";
    case NodeUpdate::State::kUndrain:
      return "UNDRAIN";
    case NodeUpdate::State::kResume:
      return "RESUME";
    case NodeUpdate::State::kDown:
      return "DOWN";
    case NodeUpdate::State::kIdle:
      return "IDLE";
  }
  return "";
}

std::string NodeUpdateBody(const NodeUpdate& update) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  if (update.state != NodeUpdate::State::kNone) {
    w.Key("state");
    w.StartArray();
    const absl::string_view state = NodeUpdateStateName(update.state);
    w.String(state.data(), static_cast<rapidjson::SizeType>(state.size()));
    w.EndArray();
  }
  if (!update.reason.empty() || update.state != NodeUpdate::State::kNone) {
    WriteString(w, "reason", update.reason);
  }
  if (update.comment.has_value()) WriteString(w, "comment", *update.comment);
  // Slurm ignores an empty list; [""] clears. Clearing the available features clears the
  // active ones too (they must stay a subset), unless those are given.
  const std::vector<std::string> kClear = {""};
  if (update.features.has_value()) {
    WriteStrings(w, "features", update.features->empty() ? kClear : *update.features);
  }
  if (update.active_features.has_value()) {
    WriteStrings(w, "features_act",
                 update.active_features->empty() ? kClear : *update.active_features);
  } else if (update.features.has_value() && update.features->empty()) {
    WriteStrings(w, "features_act", kClear);
  }
  w.EndObject();
  return buffer.GetString();
}

std::string JobSubmitBody(const JobSubmission& job) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("job");
  w.StartObject();
  WriteString(w, "script", job.script);
  if (!job.name.empty()) WriteString(w, "name", job.name);
  if (!job.partition.empty()) WriteString(w, "partition", job.partition);
  if (!job.nodes.empty()) WriteString(w, "nodes", job.nodes);
  if (job.tasks.has_value()) {
    w.Key("tasks");
    w.Int64(*job.tasks);
  }
  if (job.cpus_per_task.has_value()) {
    w.Key("cpus_per_task");
    w.Int64(*job.cpus_per_task);
  }
  if (job.memory_per_node_mb.has_value()) {
    WriteNumber(w, "memory_per_node", *job.memory_per_node_mb);
  }
  if (!job.tres_per_node.empty()) WriteString(w, "tres_per_node", job.tres_per_node);
  if (job.time_limit_minutes.has_value()) WriteNumber(w, "time_limit", *job.time_limit_minutes);
  if (!job.account.empty()) WriteString(w, "account", job.account);
  if (!job.qos.empty()) WriteString(w, "qos", job.qos);
  if (!job.constraints.empty()) WriteString(w, "constraints", job.constraints);
  if (!job.required_nodes.empty()) WriteStrings(w, "required_nodes", job.required_nodes);
  if (!job.comment.empty()) WriteString(w, "comment", job.comment);
  WriteStrings(
      w, "environment",
      job.environment.empty() ? std::vector<std::string>{"PATH=/bin:/usr/bin"} : job.environment);
  WriteString(w, "current_working_directory", job.cwd.empty() ? "/tmp" : job.cwd);
  if (!job.standard_output.empty()) WriteString(w, "standard_output", job.standard_output);
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string JobUpdateBody(const JobUpdate& update) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  if (update.time_limit_minutes.has_value()) {
    WriteNumber(w, "time_limit", *update.time_limit_minutes);
  }
  if (update.comment.has_value()) WriteString(w, "comment", *update.comment);
  w.EndObject();
  return buffer.GetString();
}

}  // namespace tidepool::slurm::rest
