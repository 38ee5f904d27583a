#include "k8s/conditions.h"

#include <catch2/catch_test_macros.hpp>

#include "rapidjson/document.h"

namespace tidepool::k8s {
namespace {

rapidjson::Document Doc(const char* json) {
  rapidjson::Document doc;
  doc.Parse(json);
  return doc;
}

TEST_CASE("conditions are read by type; details only of the types asked for") {
  const rapidjson::Document doc = Doc(R"({"status": {"conditions": [
      {"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "posting",
       "lastTransitionTime": "2026-12-05T06:00:00Z"},
      {"type": "Mine", "status": "False", "reason": "Because", "message": "why",
       "lastTransitionTime": "2026-12-05T07:00:00Z", "observedGeneration": 3}]}})");
  const std::map<std::string, Condition> all = ReadConditions(doc);
  REQUIRE(all.size() == 2);
  CHECK(all.at("Ready").reason == "KubeletReady");
  CHECK(all.at("Ready").last_transition_time == "2026-12-05T06:00:00Z");

  const std::map<std::string, Condition> mine =
      ReadConditions(doc, [](absl::string_view type) { return type == "Mine"; });
  REQUIRE(mine.size() == 2);
  CHECK(mine.at("Ready").type == "Ready");
  CHECK(mine.at("Ready").status == "True");
  CHECK(mine.at("Ready").reason.empty());
  CHECK(mine.at("Ready").message.empty());
  CHECK(mine.at("Ready").last_transition_time.empty());
  CHECK(mine.at("Mine").status == "False");
  CHECK(mine.at("Mine").reason == "Because");
  CHECK(mine.at("Mine").message == "why");
  CHECK(mine.at("Mine").last_transition_time == "2026-12-05T07:00:00Z");
  CHECK(mine.at("Mine").observed_generation == 3);

  CHECK(ReadConditions(Doc(R"({"status": {"conditions": {}}})")).empty());
  CHECK(ReadConditions(Doc(R"({})")).empty());
  CHECK(ReadConditions(Doc(R"({"status": {"conditions": [{"status": "True"}]}})")).empty());
}

TEST_CASE("only the kept conditions are read; a status is found by type") {
  const rapidjson::Document doc = Doc(R"({"status": {"conditions": [
      {"type": "Ready", "status": "True", "reason": "KubeletReady"},
      {"type": "Mine", "status": "False", "reason": "Because"},
      {"type": "Other", "status": "Unknown"}]}})");
  const std::map<std::string, Condition> kept = ReadConditions(
      doc, [](absl::string_view type) { return type != "Other"; },
      [](absl::string_view type) { return type == "Mine"; });
  REQUIRE(kept.size() == 2);
  CHECK(kept.at("Ready").reason.empty());
  CHECK(kept.at("Mine").reason == "Because");
  CHECK(ReadConditions(
            doc, [](absl::string_view) { return false; }, [](absl::string_view) { return true; })
            .empty());

  CHECK(ReadConditionStatus(doc, "Ready") == "True");
  CHECK(ReadConditionStatus(doc, "Other") == "Unknown");
  CHECK(ReadConditionStatus(doc, "Absent").empty());
  CHECK(ReadConditionStatus(Doc(R"({"status": {"conditions": {}}})"), "Ready").empty());
  CHECK(ReadConditionStatus(Doc("[1]"), "Ready").empty());
}

TEST_CASE("the first of several types wins wherever it is in the list") {
  const rapidjson::Document doc = Doc(R"({"status": {"conditions": [
      {"type": "Ready", "status": "False"},
      {"type": "ContainersReady", "status": "True"},
      {"type": 7, "status": "Unknown"}]}})");
  CHECK(ReadFirstConditionStatus(doc, {"ContainersReady", "Ready"}) == "True");
  CHECK(ReadFirstConditionStatus(doc, {"Ready", "ContainersReady"}) == "False");
  CHECK(ReadFirstConditionStatus(doc, {"Absent", "Ready"}) == "False");
  CHECK(ReadFirstConditionStatus(doc, {"Absent"}).empty());
  CHECK(ReadFirstConditionStatus(doc, {}).empty());
  // A type that is not a string is no type: it matches nothing, not even "".
  CHECK(ReadFirstConditionStatus(doc, {""}).empty());
}

}  // namespace
}  // namespace tidepool::k8s
