#pragma once

// What the JSON mapping's readers share (json_mapping_reader.cc, _nodes.cc, _replies.cc):
// reading Slurm's numbers, members of an object with path-naming errors, and the
// errors[] every reply may carry. Internal to libs/slurm/rest; callers use
// json_mapping.h.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "slurm/rest/errors.h"
#include "slurm/rest/json_mapping_rapidjson.h"

namespace tidepool::slurm::rest::json_internal {

using rapidjson::Value;

// "a string", "an array", … for messages about unexpected JSON.
const char* TypeName(const Value& v);

// Slurm writes 0 for "no time".
inline std::optional<absl::Time> TimeFromUnix(int64_t seconds) {
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

// A JSON number as int64 (clamped, fraction dropped); false for anything else.
bool NumberToInt(const Value& v, int64_t* out);

// Parses `body` into `doc`, which must be an object.
absl::Status ParseDocument(absl::string_view body, const CallContext& call,
                           rapidjson::Document* doc);

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

// The errors[] of a reply document.
std::vector<SlurmError> ReadErrors(const Value& doc);

// Parses `body`, checks errors[] and returns the document for mapping.
absl::Status ParseChecked(absl::string_view body, const CallContext& call,
                          rapidjson::Document* doc);

// A mapping problem (from ObjectReader) as the call's malformed-reply error.
absl::Status Mapped(const CallContext& call, const absl::Status& status);

}  // namespace tidepool::slurm::rest::json_internal
