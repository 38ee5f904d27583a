#include "k8s/informer.h"

#include <any>
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tidepool::k8s {
namespace {

WatchEvent Event(WatchEventType type, const std::string& ns, const std::string& name,
                 const std::string& rv, const std::string& app) {
  const std::string json =
      absl::StrCat(R"({"metadata":{"name":")", name, R"(","namespace":")", ns,
                   R"(","resourceVersion":")", rv, R"(","labels":{"app":")", app, R"("}}})");
  WatchEvent event;
  event.type = type;
  event.object_json = json;
  event.meta = *ParseObjectMeta(json);
  return event;
}

std::vector<std::string> Keys(const std::vector<CachedObjectPtr>& objects) {
  std::vector<std::string> out;
  for (const CachedObjectPtr& o : objects) out.push_back(o->meta.Key());
  return out;
}

TEST_CASE("a label key is indexed from its first list on, and kept current after") {
  ClientConfig config;
  config.server = "https://127.0.0.1:1";
  Client client(config);
  Informer informer(client, ConfigMaps(), "");
  informer.HandleEvent(Event(WatchEventType::kAdded, "a", "x", "1", "web"));
  informer.HandleEvent(Event(WatchEventType::kModified, "a", "x", "2", "db"));
  CHECK(informer.ListByLabel("other", "web").empty());
  CHECK(Keys(informer.ListByLabel("app", "db")) == std::vector<std::string>{"a/x"});
  informer.HandleEvent(Event(WatchEventType::kAdded, "a", "y", "3", "db"));
  informer.HandleEvent(Event(WatchEventType::kModified, "a", "x", "4", "web"));
  CHECK(Keys(informer.ListByLabel("app", "db")) == std::vector<std::string>{"a/y"});
  CHECK(Keys(informer.ListByLabel("app", "web")) == std::vector<std::string>{"a/x"});
  informer.HandleEvent(Event(WatchEventType::kDeleted, "a", "x", "5", "web"));
  CHECK(informer.ListByLabel("app", "web").empty());
}

TEST_CASE("an informer that keeps views only drops the JSON and labels it is told to") {
  ClientConfig config;
  config.server = "https://127.0.0.1:1";
  Client client(config);
  // The view: the app label, or none for an object labelled "broken".
  auto app_view = [](absl::string_view json) -> std::any {
    absl::StatusOr<ObjectMeta> meta = ParseObjectMeta(json);
    if (!meta.ok() || meta->labels["app"] == "broken") return {};
    return meta->labels["app"];
  };
  Informer views_only(client, ConfigMaps(), "",
                      {.parse_view = app_view, .keep_viewed_json = false});
  Informer both(client, ConfigMaps(), "", {.parse_view = app_view});
  Informer no_labels(client, ConfigMaps(), "",
                     {.parse_view = app_view, .keep_viewed_labels = false});
  for (Informer* informer : {&views_only, &both, &no_labels}) {
    informer->HandleEvent(Event(WatchEventType::kAdded, "a", "x", "1", "web"));
    informer->HandleEvent(Event(WatchEventType::kAdded, "a", "y", "2", "broken"));
  }
  CachedObjectPtr viewed = views_only.Get("a", "x");
  REQUIRE(viewed != nullptr);
  REQUIRE(viewed->ViewAs<std::string>() != nullptr);
  CHECK(*viewed->ViewAs<std::string>() == "web");
  CHECK(viewed->json.empty());
  CHECK(viewed->meta.labels.at("app") == "web");
  CachedObjectPtr unviewed = views_only.Get("a", "y");  // no view: the JSON is what there is
  REQUIRE(unviewed != nullptr);
  CHECK(unviewed->ViewAs<std::string>() == nullptr);
  CHECK_FALSE(unviewed->json.empty());
  CHECK_FALSE(both.Get("a", "x")->json.empty());
  CHECK(both.Get("a", "x")->meta.labels.at("app") == "web");

  CHECK(no_labels.Get("a", "x")->meta.labels.empty());
  CHECK_FALSE(no_labels.Get("a", "x")->json.empty());
  CHECK(no_labels.Get("a", "y")->meta.labels.at("app") == "broken");  // no view: kept
  CHECK(no_labels.ListByLabel("app", "web").empty());
}

TEST_CASE("the informer cache: store, indexes, handlers, synced") {
  ClientConfig config;
  config.server = "https://127.0.0.1:1";  // never contacted: events are fed by hand
  Client client(config);
  Informer informer(client, ConfigMaps(), "");
  std::vector<std::string> seen;
  informer.AddHandlers({
      .on_add = [&](const CachedObjectPtr& o) { seen.push_back("add " + o->meta.Key()); },
      .on_update =
          [&](const CachedObjectPtr& old_object, const CachedObjectPtr& new_object) {
            seen.push_back(absl::StrCat("update ", new_object->meta.Key(), " ",
                                        old_object->meta.resource_version, "->",
                                        new_object->meta.resource_version));
          },
      .on_delete = [&](const CachedObjectPtr& o) { seen.push_back("delete " + o->meta.Key()); },
  });
  CHECK_FALSE(informer.HasSynced());
  informer.HandleEvent(Event(WatchEventType::kAdded, "a", "x", "1", "web"));
  informer.HandleEvent(Event(WatchEventType::kAdded, "b", "y", "2", "web"));
  informer.HandleEvent(Event(WatchEventType::kAdded, "a", "z", "3", "db"));
  WatchEvent synced;
  synced.type = WatchEventType::kSynced;
  synced.meta.resource_version = "3";
  informer.HandleEvent(synced);
  CHECK(informer.HasSynced());
  CHECK(informer.WaitForSync(absl::ZeroDuration()));
  CHECK(informer.LastResourceVersion() == "3");

  CHECK(Keys(informer.List()) == std::vector<std::string>{"a/x", "a/z", "b/y"});
  CHECK(Keys(informer.ListNamespace("a")) == std::vector<std::string>{"a/x", "a/z"});
  CHECK(Keys(informer.ListByLabel("app", "web")) == std::vector<std::string>{"a/x", "b/y"});
  REQUIRE(informer.Get("a", "z") != nullptr);
  CHECK(informer.Get("a/z")->meta.resource_version == "3");
  CHECK(informer.Get("a/nope") == nullptr);

  // A label change moves the object between label indexes.
  informer.HandleEvent(Event(WatchEventType::kModified, "a", "x", "4", "db"));
  CHECK(Keys(informer.ListByLabel("app", "web")) == std::vector<std::string>{"b/y"});
  CHECK(Keys(informer.ListByLabel("app", "db")) == std::vector<std::string>{"a/x", "a/z"});
  informer.HandleEvent(Event(WatchEventType::kDeleted, "b", "y", "5", "web"));
  CHECK(informer.ListByLabel("app", "web").empty());
  CHECK(informer.ListNamespace("b").empty());
  // Deleting what is not cached tells no one.
  informer.HandleEvent(Event(WatchEventType::kDeleted, "b", "y", "6", "web"));
  CHECK(informer.LastResourceVersion() == "6");

  CHECK(seen ==
        std::vector<std::string>{"add a/x", "add b/y", "add a/z", "update a/x 1->4", "delete b/y"});

  // A handler added late is told about what is cached first.
  std::vector<std::string> late;
  informer.AddHandlers(
      {.on_add = [&](const CachedObjectPtr& o) { late.push_back(o->meta.Key()); }});
  CHECK(late == std::vector<std::string>{"a/x", "a/z"});
}

TEST_CASE("a cache whose watch keeps failing turns stale, and current at the next event") {
  ClientConfig config;
  config.server = "https://127.0.0.1:1";  // never contacted: events are fed by hand
  Client client(config);
  Informer informer(client, ConfigMaps(), "hpc");
  const absl::Time start = absl::FromUnixSeconds(1'800'000'000);
  CHECK(informer.Freshness(kCacheStaleAfter, start).ok());
  informer.RecordWatchError(absl::UnavailableError("connection refused"), start);
  informer.RecordWatchError(absl::UnavailableError("connection reset"), start + absl::Seconds(9));
  // One failing stretch counts from its first error, up to the grace.
  CHECK(informer.Freshness(absl::Seconds(30), start + absl::Seconds(30)).ok());
  const absl::Status stale = informer.Freshness(absl::Seconds(30), start + absl::Seconds(31));
  CHECK(absl::IsUnavailable(stale));
  CHECK(stale.message() ==
        "the watch of configmaps in hpc has failed for 31s: its cache may be behind (last "
        "error: connection reset)");
  // Any event, a bookmark too, is the server answering again.
  WatchEvent bookmark;
  bookmark.type = WatchEventType::kBookmark;
  bookmark.meta.resource_version = "77";
  informer.HandleEvent(bookmark);
  CHECK(informer.Freshness(absl::Seconds(30), start + absl::Minutes(5)).ok());
}

TEST_CASE("the informer keeps a view per object when given a parser, parsed once") {
  ClientConfig config;
  config.server = "https://127.0.0.1:1";  // never contacted: events are fed by hand
  Client client(config);
  struct AppView {
    std::string app;
  };
  int parses = 0;
  Informer informer(client, ConfigMaps(), "",
                    {.parse_view = [&](absl::string_view json) -> std::any {
                      ++parses;
                      absl::StatusOr<ObjectMeta> meta = ParseObjectMeta(json);
                      if (!meta.ok() || !meta->labels.contains("app")) return {};
                      return AppView{meta->labels.at("app")};
                    }});
  informer.HandleEvent(Event(WatchEventType::kAdded, "a", "x", "1", "web"));
  informer.HandleEvent(Event(WatchEventType::kModified, "a", "x", "2", "db"));
  CHECK(parses == 2);
  CachedObjectPtr x = informer.Get("a", "x");
  REQUIRE(x != nullptr);
  REQUIRE(x->ViewAs<AppView>() != nullptr);
  CHECK(x->ViewAs<AppView>()->app == "db");
  CHECK(x->ViewAs<std::string>() == nullptr);  // another type: none
  // Reads do not parse again; a delete has nothing to parse.
  (void)informer.List();
  informer.HandleEvent(Event(WatchEventType::kDeleted, "a", "x", "3", "db"));
  CHECK(parses == 2);

  // Without a parser there is no view.
  Informer plain(client, ConfigMaps(), "");
  plain.HandleEvent(Event(WatchEventType::kAdded, "a", "y", "1", "web"));
  CHECK(plain.Get("a", "y")->ViewAs<AppView>() == nullptr);
}

}  // namespace
}  // namespace tidepool::k8s
