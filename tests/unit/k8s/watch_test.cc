#include "k8s/watch.h"

#include <catch2/catch_test_macros.hpp>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "k8s/errors.h"

namespace tidepool::k8s {
namespace {

std::string Cm(const std::string& name, const std::string& rv, const std::string& ns = "default") {
  return absl::StrCat(R"({"kind":"ConfigMap","metadata":{"name":")", name, R"(","namespace":")", ns,
                      R"(","resourceVersion":")", rv, R"("}})");
}

std::string Line(const std::string& type, const std::string& object) {
  return absl::StrCat(R"({"type":")", type, R"(","object":)", object, "}\n");
}

TEST_CASE("watch events drop metadata.managedFields, keep the rest") {
  absl::StatusOr<WatchEvent> event = ParseWatchEvent(
      Line("MODIFIED",
           R"({"kind":"Pod","metadata":{"name":"p","managedFields":[{"manager":"kubelet",)"
           R"("fieldsV1":{"f:status":{}}}],"labels":{"a":"b"}},"status":{"phase":"Running"}})"));
  REQUIRE(event.ok());
  CHECK(
      event->object_json ==
      R"({"kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"status":{"phase":"Running"}})");
}

TEST_CASE("watch events of every type") {
  absl::StatusOr<WatchEvent> added = ParseWatchEvent(Line("ADDED", Cm("a", "5")));
  REQUIRE(added.ok());
  CHECK(added->type == WatchEventType::kAdded);
  CHECK(added->meta.Key() == "default/a");
  CHECK(added->meta.resource_version == "5");
  CHECK(added->object_json == Cm("a", "5"));
  CHECK_FALSE(added->synthetic);

  CHECK(ParseWatchEvent(Line("MODIFIED", Cm("a", "6")))->type == WatchEventType::kModified);
  CHECK(ParseWatchEvent(Line("DELETED", Cm("a", "7")))->type == WatchEventType::kDeleted);

  absl::StatusOr<WatchEvent> bookmark = ParseWatchEvent(
      R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1",)"
      R"("metadata":{"resourceVersion":"12345","annotations":{"k8s.io/initial-events-end":"true"}}}})");
  REQUIRE(bookmark.ok());
  CHECK(bookmark->type == WatchEventType::kBookmark);
  CHECK(bookmark->meta.resource_version == "12345");

  absl::StatusOr<WatchEvent> error = ParseWatchEvent(
      R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},)"
      R"json("status":"Failure","message":"too old resource version: 1 (300)","reason":"Expired",)json"
      R"("code":410}})");
  REQUIRE(error.ok());
  CHECK(error->type == WatchEventType::kError);
  CHECK(IsGone(error->error));
  CHECK(error->error.message() == "too old resource version: 1 (300)");

  CHECK_FALSE(ParseWatchEvent("not json").ok());
  CHECK_FALSE(ParseWatchEvent(R"({"type":"ADDED"})").ok());
  CHECK_FALSE(ParseWatchEvent(R"({"type":"RENAMED","object":{}})").ok());
  CHECK(WatchEventTypeName(WatchEventType::kBookmark) == "BOOKMARK");
}

TEST_CASE("lines are reassembled however the stream is chunked") {
  const std::string stream = Line("ADDED", Cm("a", "1")) + Line("MODIFIED", Cm("a", "2")) + "\n" +
                             Line("DELETED", Cm("a", "3"));
  const std::vector<std::string> expected = {
      Line("ADDED", Cm("a", "1")), Line("MODIFIED", Cm("a", "2")), Line("DELETED", Cm("a", "3"))};
  for (size_t chunk_size : {size_t{1}, size_t{2}, size_t{7}, size_t{64}, stream.size()}) {
    LineSplitter splitter;
    std::vector<std::string> lines;
    for (size_t at = 0; at < stream.size(); at += chunk_size) {
      REQUIRE(splitter.Feed(absl::string_view(stream).substr(at, chunk_size),
                            [&](absl::string_view line) {
                              lines.emplace_back(absl::StrCat(line, "\n"));
                              return true;
                            }));
    }
    INFO("chunk size " << chunk_size);
    CHECK(lines == expected);
    CHECK(splitter.pending_bytes() == 0);
  }
}

TEST_CASE("a consumer can stop the splitter; a partial line waits for its end") {
  LineSplitter splitter;
  int calls = 0;
  CHECK_FALSE(splitter.Feed("a\nb\nc\n", [&](absl::string_view) { return ++calls < 2; }));
  CHECK(calls == 2);
  LineSplitter partial;
  std::vector<std::string> lines;
  auto collect = [&](absl::string_view line) {
    lines.emplace_back(line);
    return true;
  };
  partial.Feed("{\"half\":", collect);
  CHECK(lines.empty());
  CHECK(partial.pending_bytes() == 8);
  partial.Feed("1}\r\n", collect);
  CHECK(lines == std::vector<std::string>{"{\"half\":1}"});
}

std::vector<std::string> Describe(const std::vector<WatchEvent>& events) {
  std::vector<std::string> out;
  for (const WatchEvent& e : events) {
    out.push_back(absl::StrCat(WatchEventTypeName(e.type), " ", e.meta.Key(), "@",
                               e.meta.resource_version, e.synthetic ? "" : " (real)"));
  }
  return out;
}

TEST_CASE("relist diff: additions, changes, deletions, nothing for unchanged") {
  KnownObjects known;
  for (const std::string& json :
       {Cm("keep", "10"), Cm("change", "11"), Cm("gone", "12"), Cm("gone-too", "13", "other")}) {
    absl::StatusOr<WatchEvent> e = ParseWatchEvent(Line("ADDED", json));
    ApplyEvent(*e, known);
  }
  const std::vector<std::string> listed = {Cm("new", "20"), Cm("keep", "10"), Cm("change", "21"),
                                           R"({"metadata":{}})"};
  const std::vector<WatchEvent> events = ResyncEvents(known, listed);
  CHECK(Describe(events) == std::vector<std::string>{
                                "DELETED default/gone@12",
                                "DELETED other/gone-too@13",
                                "MODIFIED default/change@21",
                                "ADDED default/new@20",
                            });
  // The deletion carries the last known object.
  CHECK(events[0].object_json == Cm("gone", "12"));
  // Applying the resync makes the known set the listed set.
  for (const WatchEvent& e : events) ApplyEvent(e, known);
  std::vector<std::string> keys;
  for (const auto& [key, object] : known) keys.push_back(key + "@" + object.resource_version);
  CHECK(keys == std::vector<std::string>{"default/change@21", "default/keep@10", "default/new@20"});
  // A second resync against the same list has nothing to say.
  CHECK(ResyncEvents(known, listed).empty());
}

TEST_CASE("relist diff without kept JSON: versions decide, deletions carry the key") {
  KnownObjects known;
  for (const std::string& json : {Cm("keep", "10"), Cm("change", "11"), Cm("gone", "12")}) {
    ApplyEvent(*ParseWatchEvent(Line("ADDED", json)), known, /*keep_json=*/false);
  }
  for (const auto& [key, object] : known) CHECK(object.object_json.empty());
  const std::vector<WatchEvent> events =
      ResyncEvents(known, {Cm("keep", "10"), Cm("change", "21")});
  CHECK(Describe(events) ==
        std::vector<std::string>{"DELETED default/gone@", "MODIFIED default/change@21"});
  CHECK(events[0].meta.name == "gone");
  CHECK(events[0].meta.ns == "default");
}

TEST_CASE("relist diff asked for every object: unchanged ones come as MODIFIED too") {
  KnownObjects known;
  for (const std::string& json : {Cm("keep", "10"), Cm("change", "11"), Cm("gone", "12")}) {
    ApplyEvent(*ParseWatchEvent(Line("ADDED", json)), known, /*keep_json=*/false);
  }
  const std::vector<WatchEvent> events = ResyncEvents(
      known, {Cm("keep", "10"), Cm("change", "21"), Cm("new", "22")}, ResyncMode::kEveryObject);
  CHECK(Describe(events) ==
        std::vector<std::string>{"DELETED default/gone@", "MODIFIED default/change@21",
                                 "MODIFIED default/keep@10", "ADDED default/new@22"});
  for (const WatchEvent& event : events) CHECK(event.synthetic);
}

TEST_CASE("relist diff a page at a time: the same events, deletions after the last page") {
  KnownObjects known;
  known["default/a"] = {"1", "", "ua"};
  known["default/b"] = {"2", "", "u1"};
  known["default/gone"] = {"3", "", "ug"};
  const auto with_uid = [](const std::string& name, const std::string& rv, const std::string& uid) {
    return absl::StrCat(R"({"metadata":{"name":")", name, R"(","namespace":"default","uid":")", uid,
                        R"(","resourceVersion":")", rv, R"("}})");
  };
  std::set<std::string> listed;
  CHECK(ResyncPageEvents(known, {with_uid("a", "1", "ua")}, ResyncMode::kChangedOnly, listed)
            .empty());
  CHECK(Describe(ResyncPageEvents(known, {with_uid("c", "9", "uc"), with_uid("b", "8", "u2")},
                                  ResyncMode::kChangedOnly, listed)) ==
        std::vector<std::string>{"DELETED default/b@", "ADDED default/b@8", "ADDED default/c@9"});
  CHECK(listed == std::set<std::string>{"default/a", "default/b", "default/c"});
  CHECK(Describe(ResyncDeletions(known, listed)) ==
        std::vector<std::string>{"DELETED default/gone@"});
}

TEST_CASE("relist diff: an object replaced under the same name is deleted and added") {
  KnownObjects known;
  known["default/a"] = {"1",
                        R"({"metadata":{"name":"a","namespace":"default","uid":"u1",)"
                        R"("resourceVersion":"1"}})",
                        "u1"};
  const std::vector<std::string> listed = {
      R"({"metadata":{"name":"a","namespace":"default","uid":"u2","resourceVersion":"9"}})"};
  const std::vector<WatchEvent> events = ResyncEvents(known, listed);
  CHECK(Describe(events) == std::vector<std::string>{"DELETED default/a@1", "ADDED default/a@9"});
  CHECK(events[0].meta.uid == "u1");
  CHECK(events[1].meta.uid == "u2");
}

TEST_CASE("relist diff from nothing adds everything; to nothing deletes everything") {
  const std::vector<std::string> listed = {Cm("b", "2"), Cm("a", "1")};
  CHECK(Describe(ResyncEvents({}, listed)) ==
        std::vector<std::string>{"ADDED default/a@1", "ADDED default/b@2"});
  KnownObjects known;
  known["default/a"] = {"1", Cm("a", "1")};
  known["n-01"] = {"3", "unreadable"};
  CHECK(Describe(ResyncEvents(known, {})) ==
        std::vector<std::string>{"DELETED default/a@1", "DELETED n-01@"});
}

}  // namespace
}  // namespace tidepool::k8s
