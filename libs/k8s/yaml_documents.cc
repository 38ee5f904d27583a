#include "k8s/yaml_documents.h"

#include <cmath>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "yaml-cpp/eventhandler.h"
#include "yaml-cpp/yaml.h"

namespace tidepool::k8s {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// YAML 1.2 core schema numbers, matched in one pass (no regex engine: a scalar is user
// input of any length).
absl::string_view WithoutSign(absl::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  return text;
}

size_t Digits(absl::string_view text, size_t from) {
  size_t at = from;
  while (at < text.size() && absl::ascii_isdigit(text[at])) ++at;
  return at - from;
}

// [-+]?(0|[1-9][0-9]*)
bool IsYamlInteger(absl::string_view text) {
  text = WithoutSign(text);
  if (text.empty()) return false;
  if (text[0] == '0') return text.size() == 1;
  return Digits(text, 0) == text.size();
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool IsYamlFloat(absl::string_view text) {
  text = WithoutSign(text);
  size_t at = Digits(text, 0);
  const size_t whole = at;
  if (at < text.size() && text[at] == '.') {
    const size_t fraction = Digits(text, at + 1);
    if (whole == 0 && fraction == 0) return false;
    at += 1 + fraction;
  } else if (whole == 0) {
    return false;
  }
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '-' || text[at] == '+')) ++at;
    const size_t exponent = Digits(text, at);
    if (exponent == 0) return false;
    at += exponent;
  }
  return at == text.size();
}

void WriteScalar(const YAML::Node& node, JsonWriter& writer) {
  const std::string& value = node.Scalar();
  // A quoted scalar has the tag "!": it is a string whatever it looks like.
  if (node.Tag() == "!") {
    writer.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
    return;
  }
  if (value == "true" || value == "True" || value == "TRUE") {
    writer.Bool(true);
  } else if (value == "false" || value == "False" || value == "FALSE") {
    writer.Bool(false);
  } else if (value == "null" || value == "~" || value.empty()) {
    writer.Null();
  } else if (int64_t integer = 0; IsYamlInteger(value) && absl::SimpleAtoi(value, &integer)) {
    writer.Int64(integer);
  } else if (double number = 0;
             IsYamlFloat(value) && absl::SimpleAtod(value, &number) && std::isfinite(number)) {
    // Written as JSON spells numbers (YAML's "+1.", ".5" and "1e400" are not JSON).
    writer.Double(number);
  } else {
    writer.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
  }
}

// What one object may expand to. YAML aliases repeat a node wherever they appear, so a
// few lines of anchors and aliases can stand for billions of values ("billion laughs").
struct Expansion {
  static constexpr int64_t kMaxValues = 1'000'000;
  static constexpr int64_t kMaxScalarBytes = int64_t{64} << 20;
  int64_t values = 0;
  int64_t scalar_bytes = 0;
};

absl::Status Count(const YAML::Node& node, Expansion& expansion) {
  ++expansion.values;
  if (node.IsScalar()) expansion.scalar_bytes += static_cast<int64_t>(node.Scalar().size());
  if (expansion.values > Expansion::kMaxValues ||
      expansion.scalar_bytes > Expansion::kMaxScalarBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("YAML expands to more than ", Expansion::kMaxValues, " values or ",
                     Expansion::kMaxScalarBytes >> 20, " MiB of text (aliases repeated?)"));
  }
  return absl::OkStatus();
}

absl::Status WriteNode(const YAML::Node& node, JsonWriter& writer, int depth,
                       Expansion& expansion) {
  if (depth > 64) return absl::InvalidArgumentError("YAML nested more than 64 levels deep");
  if (absl::Status counted = Count(node, expansion); !counted.ok()) return counted;
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      writer.Null();
      return absl::OkStatus();
    case YAML::NodeType::Scalar:
      WriteScalar(node, writer);
      return absl::OkStatus();
    case YAML::NodeType::Sequence:
      writer.StartArray();
      for (const YAML::Node& item : node) {
        absl::Status status = WriteNode(item, writer, depth + 1, expansion);
        if (!status.ok()) return status;
      }
      writer.EndArray();
      return absl::OkStatus();
    case YAML::NodeType::Map:
      writer.StartObject();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar())
          return absl::InvalidArgumentError("YAML map key is not a scalar");
        const std::string& key = entry.first.Scalar();
        writer.Key(key.c_str(), static_cast<rapidjson::SizeType>(key.size()));
        absl::Status status = WriteNode(entry.second, writer, depth + 1, expansion);
        if (!status.ok()) return status;
      }
      writer.EndObject();
      return absl::OkStatus();
  }
  return absl::InternalError("unknown YAML node type");
}

// Where each document starts; the node events do not matter here.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark start;
};

// yaml-cpp 0.7 makes no progress on a ',' where a document's node should start (", a",
// "- a\n,", "{a: b},"; found by fuzzing): YAML::LoadAll then collects empty documents until
// memory runs out. The same input walked document by document shows it as a document
// starting where the last one did.
absl::Status CheckDocumentsAdvance(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  int previous = -1;
  while (parser.HandleNextDocument(starts)) {
    if (starts.start.pos == previous) {
      return absl::InvalidArgumentError(
          absl::StrCat("YAML: cannot parse past line ", starts.start.line + 1, ", column ",
                       starts.start.column + 1, " (a ',' outside a flow collection?)"));
    }
    previous = starts.start.pos;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ToJson(const YAML::Node& node) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  Expansion expansion;
  absl::Status status = WriteNode(node, writer, 0, expansion);
  if (!status.ok()) return status;
  return std::string(buffer.GetString(), buffer.GetSize());
}

bool IsList(const YAML::Node& document) {
  // items must be a sequence: iterating a map gives key/value pairs, not nodes (fuzzing
  // found `kind: List` with a map of items ending the process with an uncaught exception).
  if (!document.IsMap() || !document["items"] || !document["kind"]) return false;
  if (!document["items"].IsSequence()) return false;
  const YAML::Node kind = document["kind"];
  return kind.IsScalar() && absl::EndsWith(kind.Scalar(), "List");
}

absl::StatusOr<std::vector<std::string>> DocumentsAsJson(const std::vector<YAML::Node>& documents) {
  std::vector<std::string> objects;
  for (const YAML::Node& document : documents) {
    if (document.IsNull()) continue;
    if (!document.IsMap()) return absl::InvalidArgumentError("a YAML document is not an object");
    std::vector<YAML::Node> items;
    if (IsList(document)) {
      for (const YAML::Node& item : document["items"]) items.push_back(item);
    } else {
      items.push_back(document);
    }
    for (const YAML::Node& item : items) {
      absl::StatusOr<std::string> json = ToJson(item);
      if (!json.ok()) return json.status();
      objects.push_back(std::move(*json));
    }
  }
  return objects;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ObjectsAsJson(absl::string_view text) {
  std::vector<YAML::Node> documents;
  try {
    const std::string whole(text);
    if (absl::Status advances = CheckDocumentsAdvance(whole); !advances.ok()) return advances;
    documents = YAML::LoadAll(whole);
  } catch (const YAML::Exception& error) {
    return absl::InvalidArgumentError(absl::StrCat("YAML: ", error.what()));
  }
  // yaml-cpp also throws while nodes are read (an invalid node, a bad conversion); nothing of
  // it may leave this library.
  try {
    return DocumentsAsJson(documents);
  } catch (const YAML::Exception& error) {
    return absl::InvalidArgumentError(absl::StrCat("YAML: ", error.what()));
  }
}

}  // namespace tidepool::k8s
