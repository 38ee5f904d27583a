#include "tidepool/feasibility.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tidepool::api {
namespace {

using google::protobuf::ListValue;
using google::protobuf::Struct;
using google::protobuf::Value;

const Value* Field(const Struct& object, const char* name) {
  auto it = object.fields().find(name);
  return it == object.fields().end() ? nullptr : &it->second;
}

std::string StringField(const Struct& object, const char* name) {
  const Value* value = Field(object, name);
  return value != nullptr && value->has_string_value() ? value->string_value() : "";
}

bool MatchesExpression(const Struct& expression,
                       const google::protobuf::Map<std::string, std::string>& labels) {
  const std::string key = StringField(expression, "key");
  const std::string op = StringField(expression, "operator");
  std::vector<std::string> values;
  if (const Value* list = Field(expression, "values"); list != nullptr && list->has_list_value()) {
    for (const Value& item : list->list_value().values()) values.push_back(item.string_value());
  }
  auto label = labels.find(key);
  const bool present = label != labels.end();
  if (op == "Exists") return present;
  if (op == "DoesNotExist") return !present;
  const bool listed =
      present && std::find(values.begin(), values.end(), label->second) != values.end();
  if (op == "In") return listed;
  if (op == "NotIn") return !listed;
  if ((op == "Gt" || op == "Lt") && present && values.size() == 1) {
    int64_t have = 0, bound = 0;
    if (!absl::SimpleAtoi(label->second, &have) || !absl::SimpleAtoi(values[0], &bound)) {
      return false;
    }
    return op == "Gt" ? have > bound : have < bound;
  }
  return false;
}

// The required node affinity's nodeSelectorTerms; null when there are none (no constraint).
const ListValue* RequiredTerms(const Struct& affinity) {
  const Value* node_affinity = Field(affinity, "nodeAffinity");
  if (node_affinity == nullptr || !node_affinity->has_struct_value()) return nullptr;
  const Value* required =
      Field(node_affinity->struct_value(), "requiredDuringSchedulingIgnoredDuringExecution");
  if (required == nullptr || !required->has_struct_value()) return nullptr;
  const Value* terms = Field(required->struct_value(), "nodeSelectorTerms");
  if (terms == nullptr || !terms->has_list_value() || terms->list_value().values().empty()) {
    return nullptr;
  }
  return &terms->list_value();
}

// One term's matchExpressions; null when it has none.
const ListValue* MatchExpressions(const Value& term) {
  const Value* expressions = Field(term.struct_value(), "matchExpressions");
  return expressions != nullptr && expressions->has_list_value() ? &expressions->list_value()
                                                                 : nullptr;
}

// nodeSelectorTerms are ORed; the expressions within one term are ANDed.
bool MatchesRequiredAffinity(const Struct& affinity,
                             const google::protobuf::Map<std::string, std::string>& labels) {
  const ListValue* terms = RequiredTerms(affinity);
  if (terms == nullptr) return true;
  for (const Value& term : terms->values()) {
    bool all = true;
    if (const ListValue* expressions = MatchExpressions(term)) {
      for (const Value& expression : expressions->values()) {
        all = all && MatchesExpression(expression.struct_value(), labels);
      }
    }
    if (all) return true;
  }
  return false;
}

bool Tolerates(const ListValue& tolerations, const tidepool::v1::Taint& taint) {
  for (const Value& item : tolerations.values()) {
    const Struct& toleration = item.struct_value();
    const std::string key = StringField(toleration, "key");
    const std::string op = StringField(toleration, "operator");
    const std::string effect = StringField(toleration, "effect");
    if (!effect.empty() && effect != taint.effect()) continue;
    if (key.empty() && op == "Exists") return true;
    if (key != taint.key()) continue;
    if (op == "Exists" || StringField(toleration, "value") == taint.value()) return true;
  }
  return false;
}

}  // namespace

bool NodeSetFitsNode(const tidepool::v1::NodeSet& node_set, const tidepool::v1::NodeInfo& node,
                     std::string* reason) {
  const auto& labels = node.metadata().labels();
  const auto set_reason = [reason](std::string why) {
    if (reason != nullptr) *reason = std::move(why);
    return false;
  };
  for (const auto& [key, value] : node_set.spec().node_selector()) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) {
      return set_reason(absl::StrCat("node selector ", key, "=", value, " does not match"));
    }
  }
  if (!MatchesRequiredAffinity(node_set.spec().affinity(), labels)) {
    return set_reason("required node affinity does not match");
  }
  for (const tidepool::v1::Taint& taint : node.taints()) {
    if (taint.effect() == "PreferNoSchedule") continue;
    if (!Tolerates(node_set.spec().tolerations(), taint)) {
      return set_reason(absl::StrCat("taint ", taint.key(), "=", taint.value(), ":", taint.effect(),
                                     " is not tolerated"));
    }
  }
  return true;
}

absl::flat_hash_set<std::string> NodeSetFitLabelKeys(const tidepool::v1::NodeSet& node_set) {
  absl::flat_hash_set<std::string> keys;
  for (const auto& [key, value] : node_set.spec().node_selector()) keys.insert(key);
  if (const ListValue* terms = RequiredTerms(node_set.spec().affinity())) {
    for (const Value& term : terms->values()) {
      if (const ListValue* expressions = MatchExpressions(term)) {
        for (const Value& expression : expressions->values()) {
          keys.insert(StringField(expression.struct_value(), "key"));
        }
      }
    }
  }
  return keys;
}

}  // namespace tidepool::api
