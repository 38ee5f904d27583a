#include "tidepool/resources.h"

#include "absl/strings/str_cat.h"
#include "common/bounded_json.h"
#include "google/protobuf/util/json_util.h"
#include "rapidjson/document.h"
#include "rapidjson/error/en.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace tidepool::api {
namespace {

absl::StatusOr<rapidjson::Document> ParseJson(absl::string_view json) {
  rapidjson::Document document;
  common::ParseBoundedJson(document, json);
  if (document.HasParseError()) {
    return absl::InvalidArgumentError(
        absl::StrCat("JSON at offset ", document.GetErrorOffset(), ": ",
                     rapidjson::GetParseError_En(document.GetParseError())));
  }
  if (!document.IsObject()) return absl::InvalidArgumentError("JSON is not an object");
  return document;
}

std::string Serialize(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string StringMember(const rapidjson::Value& object, const char* name) {
  auto it = object.FindMember(name);
  if (it == object.MemberEnd() || !it->value.IsString()) return "";
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

absl::Status ParseInto(const rapidjson::Value* value, google::protobuf::Message& message,
                       bool strict, absl::string_view object, absl::string_view field) {
  if (value == nullptr || value->IsNull()) return absl::OkStatus();
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = !strict;
  const auto status =
      google::protobuf::util::JsonStringToMessage(Serialize(*value), &message, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(object, ": ", field, ": ", std::string(status.message())));
  }
  return absl::OkStatus();
}

const rapidjson::Value* Member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

// Parses apiVersion, kind, metadata (lenient) and spec (strict) of a Tidepool resource.
template <typename Resource>
absl::StatusOr<Resource> ParseResource(absl::string_view json, absl::string_view expected_kind) {
  absl::StatusOr<rapidjson::Document> document = ParseJson(json);
  if (!document.ok()) return document.status();
  Resource resource;
  resource.set_api_version(StringMember(*document, "apiVersion"));
  resource.set_kind(StringMember(*document, "kind"));
  // Items of a list response carry no kind of their own: theirs is the list's.
  if (resource.kind().empty()) resource.set_kind(std::string(expected_kind));
  if (resource.kind() != expected_kind) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected kind ", expected_kind, ", got \"", resource.kind(), "\""));
  }
  std::string object = absl::StrCat(expected_kind, " (no name)");
  absl::Status status = ParseInto(Member(*document, "metadata"), *resource.mutable_metadata(),
                                  false, object, "metadata");
  if (!status.ok()) return status;
  object =
      absl::StrCat(expected_kind, " ", resource.metadata().namespace_(),
                   resource.metadata().namespace_().empty() ? "" : "/", resource.metadata().name());
  if (resource.api_version() != kApiVersion) {
    return absl::InvalidArgumentError(
        absl::StrCat(object, ": apiVersion \"", resource.api_version(), "\" is not ", kApiVersion));
  }
  status = ParseInto(Member(*document, "spec"), *resource.mutable_spec(), true, object, "spec");
  if (!status.ok()) return status;
  return resource;
}

}  // namespace

absl::StatusOr<tidepool::v1::SlurmCluster> ParseSlurmCluster(absl::string_view json) {
  return ParseResource<tidepool::v1::SlurmCluster>(json, "SlurmCluster");
}

absl::StatusOr<tidepool::v1::NodeSet> ParseNodeSet(absl::string_view json) {
  return ParseResource<tidepool::v1::NodeSet>(json, "NodeSet");
}

absl::StatusOr<tidepool::v1::NodeSetSlurm> ParseNodeSetSlurm(absl::string_view json,
                                                             absl::string_view object) {
  absl::StatusOr<rapidjson::Document> document = ParseJson(json);
  if (!document.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(object, ": spec.slurm: ", document.status().message()));
  }
  tidepool::v1::NodeSetSlurm slurm;
  absl::Status status = ParseInto(&*document, slurm, true, object, "spec.slurm");
  if (!status.ok()) return status;
  return slurm;
}

absl::StatusOr<tidepool::v1::NodeInfo> ParseNode(absl::string_view json) {
  absl::StatusOr<rapidjson::Document> document = ParseJson(json);
  if (!document.ok()) return document.status();
  const std::string kind = StringMember(*document, "kind");
  if (!kind.empty() && kind != "Node") {  // list items carry no kind
    return absl::InvalidArgumentError(
        absl::StrCat("expected kind Node, got \"", StringMember(*document, "kind"), "\""));
  }
  tidepool::v1::NodeInfo node;
  absl::Status status =
      ParseInto(Member(*document, "metadata"), *node.mutable_metadata(), false, "Node", "metadata");
  if (!status.ok()) return status;
  const std::string object = absl::StrCat("Node ", node.metadata().name());
  if (const rapidjson::Value* spec = Member(*document, "spec")) {
    tidepool::v1::NodeInfo scheduling;
    status = ParseInto(spec, scheduling, false, object, "spec");
    if (!status.ok()) return status;
    *node.mutable_taints() = scheduling.taints();
    node.set_unschedulable(scheduling.unschedulable());
  }
  if (const rapidjson::Value* node_status = Member(*document, "status")) {
    tidepool::v1::NodeInfo resources;
    status = ParseInto(node_status, resources, false, object, "status");
    if (!status.ok()) return status;
    *node.mutable_allocatable() = resources.allocatable();
  }
  return node;
}

absl::StatusOr<std::string> KindOf(absl::string_view json) {
  absl::StatusOr<rapidjson::Document> document = ParseJson(json);
  if (!document.ok()) return document.status();
  std::string kind = StringMember(*document, "kind");
  if (kind.empty()) return absl::InvalidArgumentError("object has no kind");
  return kind;
}

}  // namespace tidepool::api
