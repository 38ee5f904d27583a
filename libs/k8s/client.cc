#include "k8s/client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/bounded_json.h"
#include "k8s/errors.h"
#include "k8s/object_json.h"
#include "k8s/request_priority.h"
#include "rapidjson/document.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace tidepool::k8s {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

Params WriteParams(const WriteOptions& options) {
  return {{"fieldManager", options.field_manager}, {"dryRun", options.dry_run ? "All" : ""}};
}

}  // namespace

absl::StatusOr<ListResult> ParseList(absl::string_view json) {
  rapidjson::Document doc;
  common::ParseBoundedJson(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) {
    return absl::InternalError("list response is not a JSON object");
  }
  ListResult result;
  if (const rapidjson::Value* metadata = FindMember(doc, "metadata")) {
    result.resource_version = StringMember(*metadata, "resourceVersion");
    result.continue_token = StringMember(*metadata, "continue");
    if (const rapidjson::Value* remaining = FindMember(*metadata, "remainingItemCount");
        remaining != nullptr && remaining->IsInt64()) {
      result.remaining_item_count = remaining->GetInt64();
    }
  }
  const rapidjson::Value* items = FindMember(doc, "items");
  if (items != nullptr && items->IsArray()) {
    // Items of a list lack apiVersion and kind; add them from the list's.
    std::string kind = StringMember(doc, "kind");
    if (kind.size() > 4 && kind.compare(kind.size() - 4, 4, "List") == 0) {
      kind.resize(kind.size() - 4);
    } else {
      kind.clear();
    }
    const std::string api_version = StringMember(doc, "apiVersion");
    result.items.reserve(items->Size());
    for (rapidjson::Value& item : doc["items"].GetArray()) {
      if (item.IsObject() && !kind.empty() && !item.HasMember("kind")) {
        item.AddMember("kind", rapidjson::Value(kind.c_str(), doc.GetAllocator()),
                       doc.GetAllocator());
      }
      if (item.IsObject() && !api_version.empty() && !item.HasMember("apiVersion")) {
        item.AddMember("apiVersion", rapidjson::Value(api_version.c_str(), doc.GetAllocator()),
                       doc.GetAllocator());
      }
      DropManagedFields(item);
      result.items.push_back(ToJson(item));
    }
  }
  return result;
}

absl::StatusOr<Scale> ParseScale(absl::string_view json) {
  rapidjson::Document doc;
  common::ParseBoundedJson(doc, json);
  if (doc.HasParseError() || !doc.IsObject()) {
    return absl::InternalError("Scale response is not a JSON object");
  }
  Scale scale;
  if (const rapidjson::Value* spec = FindMember(doc, "spec")) {
    scale.spec_replicas = IntMember(*spec, "replicas");
  }
  if (const rapidjson::Value* status = FindMember(doc, "status")) {
    scale.status_replicas = IntMember(*status, "replicas");
    scale.selector = StringMember(*status, "selector");
  }
  if (const rapidjson::Value* metadata = FindMember(doc, "metadata")) {
    scale.resource_version = StringMember(*metadata, "resourceVersion");
  }
  return scale;
}

Client::Client(ClientConfig config, common::Clock* clock)
    : transport_(std::move(config)),
      limiter_(transport_.config().qps, transport_.config().burst, clock),
      urgent_limiter_(transport_.config().qps, transport_.config().burst, clock) {}

void Client::WaitForToken() { (UrgentRequests::Active() ? urgent_limiter_ : limiter_).Wait(); }

absl::StatusOr<std::string> Client::Call(const HttpRequest& request) {
  WaitForToken();
  absl::StatusOr<HttpResponse> response = transport_.Send(request);
  if (!response.ok()) return response.status();
  absl::Status status = StatusFromResponse(response->status, response->body,
                                           absl::StrCat(request.method, " ", request.path));
  if (!status.ok()) return status;
  return std::move(response->body);
}

absl::StatusOr<std::string> Client::Create(const ResourceType& type, absl::string_view ns,
                                           absl::string_view object_json,
                                           const WriteOptions& options) {
  absl::StatusOr<std::string> path = ResourcePath(type, ns);
  if (!path.ok()) return path.status();
  return Call({.method = "POST",
               .path = *path + QueryString(WriteParams(options)),
               .body = std::string(object_json),
               .timeout = options.timeout});
}

absl::StatusOr<std::string> Client::Get(const ResourceType& type, absl::string_view ns,
                                        absl::string_view name, absl::Duration timeout) {
  absl::StatusOr<std::string> path = ResourcePath(type, ns, name);
  if (!path.ok()) return path.status();
  return Call({.method = "GET", .path = *path, .timeout = timeout});
}

absl::StatusOr<ListResult> Client::List(const ResourceType& type, absl::string_view ns,
                                        const ListOptions& options) {
  absl::StatusOr<std::string> path = ResourcePath(type, ns);
  if (!path.ok()) return path.status();
  const Params params = {
      {"labelSelector", options.label_selector},
      {"fieldSelector", options.field_selector},
      {"limit", options.limit > 0 ? absl::StrCat(options.limit) : ""},
      {"continue", options.continue_token},
      {"resourceVersion", options.resource_version},
      {"resourceVersionMatch", options.resource_version_match},
  };
  absl::StatusOr<std::string> body =
      Call({.method = "GET", .path = *path + QueryString(params), .timeout = options.timeout});
  if (!body.ok()) return body.status();
  return ParseList(*body);
}

absl::StatusOr<ListResult> Client::ListAll(const ResourceType& type, absl::string_view ns,
                                           ListOptions options) {
  ListResult all;
  absl::Status listed =
      ListPages(type, ns, std::move(options), [&all](ListResult page) -> absl::Status {
        all.resource_version = page.resource_version;
        for (std::string& item : page.items) all.items.push_back(std::move(item));
        return absl::OkStatus();
      });
  if (!listed.ok()) return listed;
  return all;
}

absl::Status Client::ListPages(const ResourceType& type, absl::string_view ns, ListOptions options,
                               const std::function<absl::Status(ListResult page)>& on_page) {
  if (options.limit <= 0) options.limit = 500;
  std::string first_version;
  bool first = true;
  do {
    absl::StatusOr<ListResult> page = List(type, ns, options);
    if (!page.ok()) return page.status();
    if (first) first_version = page->resource_version;
    first = false;
    options.continue_token = page->continue_token;
    // A continued list is served from the first page's snapshot; it takes no version.
    options.resource_version.clear();
    options.resource_version_match.clear();
    page->resource_version = first_version;
    if (absl::Status handled = on_page(*std::move(page)); !handled.ok()) return handled;
  } while (!options.continue_token.empty());
  return absl::OkStatus();
}

absl::StatusOr<std::string> Client::Update(const ResourceType& type, absl::string_view ns,
                                           absl::string_view name, absl::string_view object_json,
                                           const WriteOptions& options,
                                           absl::string_view subresource) {
  absl::StatusOr<std::string> path = ResourcePath(type, ns, name, subresource);
  if (!path.ok()) return path.status();
  return Call({.method = "PUT",
               .path = *path + QueryString(WriteParams(options)),
               .body = std::string(object_json),
               .timeout = options.timeout});
}

absl::StatusOr<std::string> Client::Delete(const ResourceType& type, absl::string_view ns,
                                           absl::string_view name, const DeleteOptions& options) {
  absl::StatusOr<std::string> path = ResourcePath(type, ns, name);
  if (!path.ok()) return path.status();
  rapidjson::Document body(rapidjson::kObjectType);
  auto& a = body.GetAllocator();
  body.AddMember("apiVersion", "v1", a);
  body.AddMember("kind", "DeleteOptions", a);
  if (!options.precondition_uid.empty() || !options.precondition_resource_version.empty()) {
    rapidjson::Value preconditions(rapidjson::kObjectType);
    if (!options.precondition_uid.empty()) {
      preconditions.AddMember("uid", rapidjson::Value(options.precondition_uid.c_str(), a), a);
    }
    if (!options.precondition_resource_version.empty()) {
      preconditions.AddMember(
          "resourceVersion", rapidjson::Value(options.precondition_resource_version.c_str(), a), a);
    }
    body.AddMember("preconditions", preconditions, a);
  }
  if (!options.propagation_policy.empty()) {
    body.AddMember("propagationPolicy", rapidjson::Value(options.propagation_policy.c_str(), a), a);
  }
  if (options.grace_period_seconds) {
    body.AddMember("gracePeriodSeconds", *options.grace_period_seconds, a);
  }
  if (options.dry_run) {
    rapidjson::Value dry_run(rapidjson::kArrayType);
    dry_run.PushBack("All", a);
    body.AddMember("dryRun", dry_run, a);
  }
  return Call(
      {.method = "DELETE", .path = *path, .body = ToJson(body), .timeout = options.timeout});
}

absl::StatusOr<std::string> Client::MergePatch(const ResourceType& type, absl::string_view ns,
                                               absl::string_view name, absl::string_view patch_json,
                                               const WriteOptions& options,
                                               absl::string_view subresource) {
  absl::StatusOr<std::string> path = ResourcePath(type, ns, name, subresource);
  if (!path.ok()) return path.status();
  return Call({.method = "PATCH",
               .path = *path + QueryString(WriteParams(options)),
               .body = std::string(patch_json),
               .content_type = "application/merge-patch+json",
               .timeout = options.timeout});
}

absl::StatusOr<std::string> Client::Apply(const ResourceType& type, absl::string_view ns,
                                          absl::string_view name,
                                          absl::string_view object_yaml_or_json,
                                          const ApplyOptions& options,
                                          absl::string_view subresource) {
  if (options.field_manager.empty()) {
    return absl::InvalidArgumentError("server-side apply needs a field manager");
  }
  absl::StatusOr<std::string> path = ResourcePath(type, ns, name, subresource);
  if (!path.ok()) return path.status();
  const Params params = {{"fieldManager", options.field_manager},
                         {"force", options.force ? "true" : ""},
                         {"dryRun", options.dry_run ? "All" : ""}};
  return Call({.method = "PATCH",
               .path = *path + QueryString(params),
               .body = std::string(object_yaml_or_json),
               .content_type = "application/apply-patch+yaml",
               .timeout = options.timeout});
}

absl::StatusOr<Scale> Client::GetScale(const ResourceType& type, absl::string_view ns,
                                       absl::string_view name) {
  absl::StatusOr<std::string> path = ResourcePath(type, ns, name, "scale");
  if (!path.ok()) return path.status();
  absl::StatusOr<std::string> body = Call({.method = "GET", .path = *path});
  if (!body.ok()) return body.status();
  return ParseScale(*body);
}

absl::StatusOr<Scale> Client::SetReplicas(const ResourceType& type, absl::string_view ns,
                                          absl::string_view name, int64_t replicas) {
  absl::StatusOr<std::string> body = MergePatch(
      type, ns, name, absl::StrCat(R"({"spec":{"replicas":)", replicas, "}}"), {}, "scale");
  if (!body.ok()) return body.status();
  return ParseScale(*body);
}

absl::Status Client::WatchStream(const ResourceType& type, absl::string_view ns,
                                 const WatchRequest& request,
                                 const std::function<bool(absl::string_view)>& on_chunk,
                                 const std::stop_token& stop) {
  absl::StatusOr<std::string> path = ResourcePath(type, ns);
  if (!path.ok()) return path.status();
  const Params params = {
      {"watch", "1"},
      {"labelSelector", request.label_selector},
      {"fieldSelector", request.field_selector},
      {"resourceVersion", request.resource_version},
      {"allowWatchBookmarks", request.allow_bookmarks ? "true" : ""},
      {"timeoutSeconds", request.timeout_seconds > 0 ? absl::StrCat(request.timeout_seconds) : ""},
  };
  WaitForToken();
  // The server ends the stream after timeoutSeconds; the client allows a margin beyond.
  const absl::Duration timeout = request.timeout_seconds > 0
                                     ? absl::Seconds(request.timeout_seconds + 30)
                                     : absl::InfiniteDuration();
  return transport_.Stream(
      {.method = "GET", .path = *path + QueryString(params), .timeout = timeout}, on_chunk, stop);
}

}  // namespace tidepool::k8s
