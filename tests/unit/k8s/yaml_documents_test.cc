#include "k8s/yaml_documents.h"

#include <catch2/catch_test_macros.hpp>

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
