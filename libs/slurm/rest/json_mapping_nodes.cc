// GET nodes/ and node/{name}: a streaming (SAX) reader, since node lists are the large
// replies (no document tree for 10,000 nodes).

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "slurm/rest/json_mapping.h"
#include "slurm/rest/json_mapping_rapidjson.h"
#include "slurm/rest/json_mapping_reader.h"

namespace tidepool::slurm::rest {
namespace {

using json_internal::SlurmNumber;
using json_internal::TimeFromUnix;

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
    // A bare value as the whole reply (found by fuzzing: Top() read an empty stack).
    if (stack_.empty()) return Error(absl::StrCat(KindName(kind), " at the top"));
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

}  // namespace

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
  // Iterative: the default parser recurses per nesting level, and a reply nested deeply
  // enough would exhaust the stack.
  const rapidjson::ParseResult result =
      reader.Parse<rapidjson::kParseInsituFlag | rapidjson::kParseStopWhenDoneFlag |
                   rapidjson::kParseIterativeFlag>(stream, handler);
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

}  // namespace tidepool::slurm::rest
