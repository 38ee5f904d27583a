// The Kubernetes half of the test environment, exercised the way Tidepool's controllers
// will use it: a ConfigMap through its whole life over HTTPS (client certificate, CA
// file) including a watch, and a CRD applied with kubectl until it is Established.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "support/json.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

constexpr char kConfigMaps[] = "/api/v1/namespaces/default/configmaps";
constexpr char kCrdName[] = "smokewidgets.testenv.tidepool.dev";
constexpr char kWidgets[] = "/apis/testenv.tidepool.dev/v1alpha1/namespaces/default/smokewidgets";

KubernetesEnv RequireKubernetes() {
  absl::StatusOr<KubernetesEnv> env = Kubernetes();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  return *std::move(env);
}

// A name no earlier run has used (objects of a failed run may still exist).
std::string UniqueName(absl::string_view prefix) {
  return absl::StrCat(prefix, "-", getpid(), "-", absl::ToUnixMillis(absl::Now()) % 1000000);
}

std::string ConfigMapJson(const std::string& name, const std::string& answer,
                          const std::string& resource_version = "") {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  auto field = [&w](const char* key, const std::string& value) {
    w.Key(key);
    w.String(value.c_str());
  };
  w.StartObject();
  field("apiVersion", "v1");
  field("kind", "ConfigMap");
  w.Key("metadata");
  w.StartObject();
  field("name", name);
  if (!resource_version.empty()) field("resourceVersion", resource_version);
  w.Key("labels");
  w.StartObject();
  field("app.kubernetes.io/part-of", "tidepool-tests");
  w.EndObject();
  w.EndObject();
  w.Key("data");
  w.StartObject();
  field("answer", answer);
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

rapidjson::Document RequireJson(const HttpResponse& response) {
  absl::StatusOr<rapidjson::Document> document = ParseJson(response.body);
  INFO(document.status().ToString());
  REQUIRE(document.ok());
  return *std::move(document);
}

struct WatchEvent {
  std::string type;
  std::string name;
  std::string answer;
  std::string resource_version;
};

TEST_CASE("a ConfigMap over HTTPS: create, read, update, watch and delete") {
  const KubernetesEnv env = RequireKubernetes();
  const HttpsClient api = KubernetesClient(env);
  const std::string name = UniqueName("tp-smoke");
  const std::string path = absl::StrCat(kConfigMaps, "/", name);

  // The list's resourceVersion is where the watch starts: it then sees every change
  // after the list, however late the stream connects.
  absl::StatusOr<HttpResponse> list = api.Get(kConfigMaps);
  REQUIRE(list.ok());
  REQUIRE(list->status == 200);
  const rapidjson::Document list_json = RequireJson(*list);
  CHECK(StringAt(list_json, "kind") == "ConfigMapList");
  const std::string list_version = StringAt(list_json, "metadata.resourceVersion");
  REQUIRE_FALSE(list_version.empty());

  std::mutex mutex;
  std::vector<WatchEvent> events;
  std::vector<std::string> bad_lines;
  absl::Status watch_status;
  std::thread watcher([&] {
    watch_status = api.StreamLines(
        absl::StrCat(kConfigMaps, "?watch=1&resourceVersion=", list_version,
                     "&fieldSelector=metadata.name%3D", name),
        [&](absl::string_view line) {
          std::lock_guard<std::mutex> lock(mutex);
          absl::StatusOr<rapidjson::Document> event = ParseJson(line);
          if (!event.ok()) {
            bad_lines.emplace_back(line);
            return false;
          }
          events.push_back({StringAt(*event, "type"), StringAt(*event, "object.metadata.name"),
                            StringAt(*event, "object.data.answer"),
                            StringAt(*event, "object.metadata.resourceVersion")});
          return events.back().type != "DELETED";
        },
        absl::Seconds(60));
  });
  // On every exit path: the object goes (which also ends the watch), the thread is joined.
  absl::Cleanup cleanup = [&] {
    (void)api.Delete(path);
    watcher.join();
  };

  absl::StatusOr<HttpResponse> created = api.Post(kConfigMaps, ConfigMapJson(name, "42"));
  REQUIRE(created.ok());
  INFO(created->body);
  REQUIRE(created->status == 201);
  const rapidjson::Document created_json = RequireJson(*created);
  const std::string uid = StringAt(created_json, "metadata.uid");
  CHECK_FALSE(uid.empty());
  CHECK(StringAt(created_json, "data.answer") == "42");

  absl::StatusOr<HttpResponse> read = api.Get(path);
  REQUIRE(read.ok());
  REQUIRE(read->status == 200);
  const rapidjson::Document read_json = RequireJson(*read);
  CHECK(StringAt(read_json, "metadata.uid") == uid);
  CHECK(StringAt(read_json, "data.answer") == "42");
  const rapidjson::Value* labels = FindPath(read_json, "metadata.labels");
  REQUIRE(labels != nullptr);
  CHECK(labels->HasMember("app.kubernetes.io/part-of"));

  // PUT with a stale resourceVersion conflicts; with the current one it replaces.
  absl::StatusOr<HttpResponse> stale = api.Put(path, ConfigMapJson(name, "41", list_version));
  REQUIRE(stale.ok());
  CHECK(stale->status == 409);
  absl::StatusOr<HttpResponse> updated =
      api.Put(path, ConfigMapJson(name, "43", StringAt(read_json, "metadata.resourceVersion")));
  REQUIRE(updated.ok());
  INFO(updated->body);
  REQUIRE(updated->status == 200);
  CHECK(StringAt(RequireJson(*updated), "data.answer") == "43");

  absl::StatusOr<HttpResponse> deleted = api.Delete(path);
  REQUIRE(deleted.ok());
  CHECK(deleted->status == 200);
  absl::StatusOr<HttpResponse> gone = api.Get(path);
  REQUIRE(gone.ok());
  CHECK(gone->status == 404);
  const rapidjson::Document gone_json = RequireJson(*gone);
  CHECK(StringAt(gone_json, "kind") == "Status");
  CHECK(StringAt(gone_json, "reason") == "NotFound");

  std::move(cleanup).Invoke();
  INFO(watch_status.ToString());
  CHECK(bad_lines.empty());
  REQUIRE(watch_status.ok());
  std::vector<std::string> seen;
  for (const WatchEvent& event : events) {
    seen.push_back(absl::StrCat(event.type, " ", event.name, " answer=", event.answer));
  }
  CHECK(seen == std::vector<std::string>{absl::StrCat("ADDED ", name, " answer=42"),
                                         absl::StrCat("MODIFIED ", name, " answer=43"),
                                         absl::StrCat("DELETED ", name, " answer=43")});
}

TEST_CASE("the API server insists on a client certificate and is verified against the CA") {
  const KubernetesEnv env = RequireKubernetes();

  HttpsClient anonymous(HttpsClientOptions{.base_url = env.server, .ca_file = env.ca_file});
  absl::StatusOr<HttpResponse> response = anonymous.Get(kConfigMaps);
  REQUIRE(response.ok());
  CHECK((response->status == 401 || response->status == 403));

  // The system CA store does not know the test CA: TLS verification must fail.
  HttpsClient unverified(HttpsClientOptions{.base_url = env.server,
                                            .ca_file = "/etc/ssl/certs/ca-certificates.crt",
                                            .client_cert_file = env.client_cert_file,
                                            .client_key_file = env.client_key_file});
  absl::StatusOr<HttpResponse> refused = unverified.Get("/readyz");
  CHECK(refused.status().code() == absl::StatusCode::kUnavailable);

  absl::StatusOr<HttpResponse> ready = KubernetesClient(env).Get("/readyz");
  REQUIRE(ready.ok());
  CHECK(ready->status == 200);
  CHECK(ready->body == "ok");
}

TEST_CASE("a watch with nothing to report ends at its timeout") {
  const KubernetesEnv env = RequireKubernetes();
  const absl::Time start = absl::Now();
  int lines = 0;
  const absl::Status status = KubernetesClient(env).StreamLines(
      absl::StrCat(kConfigMaps, "?watch=1&fieldSelector=metadata.name%3D", UniqueName("tp-never")),
      [&](absl::string_view) { return ++lines < 100; }, absl::Seconds(2));
  CHECK(status.code() == absl::StatusCode::kDeadlineExceeded);
  CHECK(lines == 0);
  CHECK(absl::Now() - start < absl::Seconds(10));
}

TEST_CASE("a CRD applied with kubectl becomes Established and is served") {
  const KubernetesEnv env = RequireKubernetes();
  const HttpsClient api = KubernetesClient(env);
  absl::Cleanup remove_crd = [&] {
    (void)Kubectl(env, {"delete", "--ignore-not-found", "--wait=true", "-f", TIDEPOOL_SMOKE_CRD});
  };

  absl::StatusOr<CommandResult> applied = Kubectl(env, {"apply", "-f", TIDEPOOL_SMOKE_CRD});
  REQUIRE(applied.ok());
  INFO(applied->output);
  REQUIRE(applied->exit_code == 0);
  CHECK(absl::StrContains(applied->output, kCrdName));

  absl::StatusOr<CommandResult> established = Kubectl(
      env,
      {"wait", "--for", "condition=established", "--timeout=60s", absl::StrCat("crd/", kCrdName)});
  REQUIRE(established.ok());
  INFO(established->output);
  REQUIRE(established->exit_code == 0);
  CHECK(absl::StrContains(established->output, "condition met"));

  // The same condition as the API server reports it.
  absl::StatusOr<HttpResponse> crd =
      api.Get(absl::StrCat("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/", kCrdName));
  REQUIRE(crd.ok());
  REQUIRE(crd->status == 200);
  const rapidjson::Document crd_json = RequireJson(*crd);
  const rapidjson::Value* conditions = FindPath(crd_json, "status.conditions");
  REQUIRE(conditions != nullptr);
  REQUIRE(conditions->IsArray());
  std::string established_status;
  for (const rapidjson::Value& condition : conditions->GetArray()) {
    if (StringAt(condition, "type") == "Established") {
      established_status = StringAt(condition, "status");
    }
  }
  CHECK(established_status == "True");

  // The new resource is served, and its schema is enforced.
  const std::string widget = UniqueName("widget");
  absl::StatusOr<HttpResponse> good = api.Post(
      kWidgets,
      absl::StrCat(R"({"apiVersion":"testenv.tidepool.dev/v1alpha1","kind":"SmokeWidget",)",
                   R"("metadata":{"name":")", widget, R"("},"spec":{"size":4,"color":"blue"}})"));
  REQUIRE(good.ok());
  INFO(good->body);
  CHECK(good->status == 201);
  absl::StatusOr<HttpResponse> bad =
      api.Post(kWidgets, R"({"apiVersion":"testenv.tidepool.dev/v1alpha1","kind":"SmokeWidget",)"
                         R"("metadata":{"name":"too-big"},"spec":{"size":80,"color":"plaid"}})");
  REQUIRE(bad.ok());
  CHECK(bad->status == 422);
  CHECK(absl::StrContains(bad->body, "spec.size"));
  CHECK(absl::StrContains(bad->body, "spec.color"));

  std::move(remove_crd).Invoke();
  absl::StatusOr<HttpResponse> removed =
      api.Get(absl::StrCat("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/", kCrdName));
  REQUIRE(removed.ok());
  CHECK(removed->status == 404);
}

}  // namespace
}  // namespace tidepool::testing
