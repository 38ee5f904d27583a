#include "k8s/yaml_documents.h"

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"

namespace tidepool::k8s {
namespace {

TEST_CASE("ObjectsAsJson keeps YAML scalar types and quoted strings") {
  auto objects = ObjectsAsJson(
      "kind: A\nmetadata: {name: x}\nspec:\n  count: 8\n  ratio: 0.5\n  quoted: \"8\"\n"
      "  flag: true\n  empty: null\n  words: [a, b]\n");
  REQUIRE(objects.ok());
  REQUIRE(objects->size() == 1);
  CHECK((*objects)[0] ==
        R"({"kind":"A","metadata":{"name":"x"},"spec":{"count":8,"ratio":0.5,"quoted":"8",)"
        R"("flag":true,"empty":null,"words":["a","b"]}})");
}

TEST_CASE("ObjectsAsJson writes YAML numbers as valid JSON, and long scalars without a regex") {
  auto objects = ObjectsAsJson(
      "a: +5\nb: .5\nc: 5.\nd: -1e3\ne: 0123\nf: 1e400\ng: 99999999999999999999\n"
      "h: 1e\ni: +\n");
  INFO(objects.status().ToString());
  REQUIRE(objects.ok());
  CHECK(
      (*objects)[0] ==
      R"({"a":5,"b":0.5,"c":5.0,"d":-1000.0,"e":123.0,"f":"1e400","g":100000000000000000000.0,"h":"1e",)"
      R"("i":"+"})");
  // A scalar of a million characters is read in one pass (std::regex recursed per character
  // and could exhaust the stack).
  auto long_scalar = ObjectsAsJson("a: " + std::string(1'000'000, '7') + "x\n");
  REQUIRE(long_scalar.ok());
  CHECK((*long_scalar)[0].size() == 1'000'000 + 9);
}

TEST_CASE("ObjectsAsJson refuses aliases that expand past a bound (billion laughs)") {
  // Ten levels of ten aliases each stand for 10^10 strings.
  std::string yaml = "kind: A\nl0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int level = 1; level <= 9; ++level) {
    const std::string previous = "*l" + std::to_string(level - 1);
    yaml += "l" + std::to_string(level) + ": &l" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) yaml += (i == 0 ? "" : ", ") + previous;
    yaml += "]\n";
  }
  absl::StatusOr<std::vector<std::string>> objects = ObjectsAsJson(yaml);
  REQUIRE_FALSE(objects.ok());
  CHECK(objects.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(objects.status().message().find("aliases") != std::string::npos);
  // A few aliases are fine.
  CHECK(ObjectsAsJson("kind: A\na: &x {b: 1}\nc: *x\n").value()[0] ==
        R"({"kind":"A","a":{"b":1},"c":{"b":1}})");
}

TEST_CASE("ObjectsAsJson splits documents and unpacks lists") {
  auto objects = ObjectsAsJson(
      "kind: A\n---\n---\napiVersion: v1\nkind: List\nitems:\n- kind: B\n- kind: C\n"
      "---\nkind: NodeList\nitems: [{kind: Node}]\n");
  REQUIRE(objects.ok());
  REQUIRE(objects->size() == 4);
  CHECK((*objects)[0] == R"({"kind":"A"})");
  CHECK((*objects)[1] == R"({"kind":"B"})");
  CHECK((*objects)[2] == R"({"kind":"C"})");
  CHECK((*objects)[3] == R"({"kind":"Node"})");
}

TEST_CASE("ObjectsAsJson reports malformed YAML instead of throwing") {
  auto objects = ObjectsAsJson("kind: [unclosed\n");
  REQUIRE_FALSE(objects.ok());
  CHECK(objects.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(objects.status().message().find("YAML") == 0);
  CHECK_FALSE(ObjectsAsJson("- just\n- a list\n").ok());
}

}  // namespace
}  // namespace tidepool::k8s

namespace tidepool::k8s {
namespace {

// Found by fuzzing: yaml-cpp 0.7's LoadAll collects empty documents without end on these
// (before the check, each ran until memory ran out).
TEST_CASE("ObjectsAsJson refuses a ',' that yaml-cpp cannot parse past") {
  for (const char* text : {",", " ,", ", a", "- a\n,", "{a: b},", "\"a\",", "a: b\n---\n,"}) {
    INFO(text);
    const absl::Status refused = ObjectsAsJson(text).status();
    CHECK(absl::IsInvalidArgument(refused));
    CHECK(absl::StrContains(refused.message(), "cannot parse past line"));
  }
  CHECK(ObjectsAsJson("a: [b, c]\n---\nd: {e: f}\n---\n").ok());
}

}  // namespace
}  // namespace tidepool::k8s

namespace tidepool::k8s {
namespace {

// Found by fuzzing: a List whose items are a map threw YAML::InvalidNode out of the library.
TEST_CASE("ObjectsAsJson takes a List with items that are not a sequence as one object") {
  const absl::StatusOr<std::vector<std::string>> objects =
      ObjectsAsJson("kind: List\nitems:\n  a: b\n");
  REQUIRE(objects.ok());
  CHECK(*objects == std::vector<std::string>{R"({"kind":"List","items":{"a":"b"}})"});
}

}  // namespace
}  // namespace tidepool::k8s
