// Events (events.k8s.io/v1), owner references and finalizers against the real API server.
#include "k8s/event_recorder.h"

#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <memory>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/errors.h"
#include "k8s/object_json.h"
#include "k8s/ownership.h"
#include "support/testenv.h"

namespace tidepool::k8s {
namespace {

std::unique_ptr<Client> AdminClient() {
  absl::StatusOr<testing::KubernetesEnv> env = testing::Kubernetes();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  absl::StatusOr<ClientConfig> config = LoadKubeconfig(env->kubeconfig);
  REQUIRE(config.ok());
  return std::make_unique<Client>(*config);
}

std::string Unique(absl::string_view prefix) {
  return absl::StrCat(prefix, "-", getpid(), "-", absl::ToUnixMicros(absl::Now()) % 100000000);
}

std::string CreateConfigMap(Client& client, const std::string& name) {
  absl::StatusOr<std::string> created = client.Create(
      ConfigMaps(), "default",
      absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", name,
                   R"(","labels":{"app.kubernetes.io/part-of":"tidepool-tests"}}})"));
  INFO(created.status().ToString());
  REQUIRE(created.ok());
  return *created;
}

// The Events in "default" about the object named `name`.
std::vector<std::string> EventsAbout(Client& client, const std::string& name) {
  absl::StatusOr<ListResult> list = client.ListAll(EventsV1(), "default");
  INFO(list.status().ToString());
  REQUIRE(list.ok());
  std::vector<std::string> out;
  for (const std::string& item : list->items) {
    rapidjson::Document event = ParseJsonObject(item, "Event").value();
    if (const rapidjson::Value* regarding = FindMember(event, "regarding");
        regarding != nullptr && StringMember(*regarding, "name") == name) {
      out.push_back(item);
    }
  }
  return out;
}

TEST_CASE("recorded events appear on the server and repeats aggregate into a series") {
  std::unique_ptr<Client> client = AdminClient();
  const std::string name = Unique("tp-events");
  absl::Cleanup cleanup = [&] { (void)client->Delete(ConfigMaps(), "default", name); };
  const ObjectReference regarding = ReferenceTo(CreateConfigMap(*client, name)).value();

  const std::string instance = Unique("test-instance");
  EventRecorder recorder(*client, {.reporting_controller = "tidepool.dev/k8s-client-test",
                                   .reporting_instance = instance});
  recorder.Record(regarding, EventType::kNormal, "Rendered", "Render", "config rendered");
  for (int i = 0; i < 3; ++i) {
    recorder.Record(regarding, EventType::kWarning, "RenderFailed", "Render",
                    "spec.slurm.gres \"gpu:8x\" is not name:type:count");
  }
  REQUIRE(recorder.Flush(absl::Seconds(30)));
  CHECK(recorder.failed() == 0);
  CHECK(recorder.dropped() == 0);

  const std::vector<std::string> events = EventsAbout(*client, name);
  INFO(absl::StrJoin(events, "\n"));
  REQUIRE(events.size() == 2);
  int normal = 0;
  int warning = 0;
  for (const std::string& json : events) {
    const rapidjson::Document event = ParseJsonObject(json, "Event").value();
    CHECK(absl::StartsWith(StringMember(event["metadata"], "name"), name + "."));
    CHECK(StringMember(event, "reportingController") == "tidepool.dev/k8s-client-test");
    CHECK(StringMember(event, "reportingInstance") == instance);
    CHECK(ParseApiTime(StringMember(event, "eventTime")).ok());
    CHECK(StringMember(event["regarding"], "uid") == regarding.uid);
    CHECK(StringMember(event["regarding"], "kind") == "ConfigMap");
    if (StringMember(event, "type") == "Normal") {
      ++normal;
      CHECK(StringMember(event, "reason") == "Rendered");
      CHECK(StringMember(event, "note") == "config rendered");
      CHECK_FALSE(event.HasMember("series"));
    } else {
      ++warning;
      CHECK(StringMember(event, "reason") == "RenderFailed");
      CHECK(StringMember(event, "action") == "Render");
      REQUIRE(event.HasMember("series"));
      CHECK(IntMember(event["series"], "count") == 3);
      CHECK(ParseApiTime(StringMember(event["series"], "lastObservedTime")).ok());
    }
  }
  CHECK(normal == 1);
  CHECK(warning == 1);
  for (const std::string& json : events) {
    (void)client->Delete(EventsV1(), "default", ParseObjectMeta(json)->name);
  }
}

TEST_CASE("a series whose Event vanished is created again with its count") {
  std::unique_ptr<Client> client = AdminClient();
  const std::string name = Unique("tp-events-gone");
  absl::Cleanup cleanup = [&] { (void)client->Delete(ConfigMaps(), "default", name); };
  const ObjectReference regarding = ReferenceTo(CreateConfigMap(*client, name)).value();
  EventRecorder recorder(
      *client, {.reporting_controller = "tidepool.dev/k8s-client-test", .reporting_instance = "i"});
  recorder.Record(regarding, EventType::kNormal, "Synced", "Sync", "synced");
  REQUIRE(recorder.Flush(absl::Seconds(30)));
  std::vector<std::string> events = EventsAbout(*client, name);
  REQUIRE(events.size() == 1);
  const std::string event_name = ParseObjectMeta(events[0])->name;
  REQUIRE(client->Delete(EventsV1(), "default", event_name).ok());  // as the TTL would

  recorder.Record(regarding, EventType::kNormal, "Synced", "Sync", "synced");
  REQUIRE(recorder.Flush(absl::Seconds(30)));
  CHECK(recorder.failed() == 0);
  events = EventsAbout(*client, name);
  REQUIRE(events.size() == 1);
  const rapidjson::Document event = ParseJsonObject(events[0], "Event").value();
  CHECK(StringMember(event["metadata"], "name") == event_name);
  CHECK(IntMember(event["series"], "count") == 2);
  (void)client->Delete(EventsV1(), "default", event_name);
}

TEST_CASE("controller references and conditional finalizer patches on the server") {
  std::unique_ptr<Client> client = AdminClient();
  const std::string owner_name = Unique("tp-owner");
  const std::string child_name = owner_name + "-child";
  absl::Cleanup cleanup = [&] {
    (void)client->MergePatch(ConfigMaps(), "default", child_name,
                             R"({"metadata":{"finalizers":null}})");
    (void)client->Delete(ConfigMaps(), "default", child_name);
    (void)client->Delete(ConfigMaps(), "default", owner_name);
  };
  const std::string owner = CreateConfigMap(*client, owner_name);
  const std::string child =
      absl::StrCat(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")", child_name,
                   R"(","namespace":"default"}})");
  const std::string owned = SetControllerReference(owner, child).value();
  absl::StatusOr<std::string> created = client->Create(ConfigMaps(), "default", owned);
  INFO(created.status().ToString());
  REQUIRE(created.ok());
  CHECK(IsControlledBy(*created, owner));
  CHECK(ControllerOf(*created)->value().block_owner_deletion);

  const std::string add = AddFinalizerPatch(*created, "tidepool.dev/test-cleanup")->value();
  absl::StatusOr<std::string> with_finalizer =
      client->MergePatch(ConfigMaps(), "default", child_name, add);
  INFO(with_finalizer.status().ToString());
  REQUIRE(with_finalizer.ok());
  CHECK(HasFinalizer(*with_finalizer, "tidepool.dev/test-cleanup"));

  // A patch computed from the old version is refused, not applied over the new one.
  const std::string stale = AddFinalizerPatch(*created, "tidepool.dev/other")->value();
  const absl::Status conflict =
      client->MergePatch(ConfigMaps(), "default", child_name, stale).status();
  INFO(conflict.ToString());
  CHECK(IsConflict(conflict));

  const std::string remove =
      RemoveFinalizerPatch(*with_finalizer, "tidepool.dev/test-cleanup")->value();
  absl::StatusOr<std::string> without =
      client->MergePatch(ConfigMaps(), "default", child_name, remove);
  REQUIRE(without.ok());
  CHECK(Finalizers(*without)->empty());
  CHECK(IsControlledBy(*without, owner));
}

}  // namespace
}  // namespace tidepool::k8s
