#include "k8s/resource.h"

#include <catch2/catch_test_macros.hpp>

#include "k8s/client.h"

namespace tidepool::k8s {
namespace {

const ResourceType kWidgets{"testenv.tidepool.dev", "v1alpha1", "smokewidgets", true};

TEST_CASE("paths of the core group, other groups, scopes and subresources") {
  CHECK(*ResourcePath(ConfigMaps(), "default") == "/api/v1/namespaces/default/configmaps");
  CHECK(*ResourcePath(ConfigMaps(), "default", "x") == "/api/v1/namespaces/default/configmaps/x");
  CHECK(*ResourcePath(ConfigMaps(), "") == "/api/v1/configmaps");  // all namespaces
  CHECK(*ResourcePath(Nodes(), "") == "/api/v1/nodes");
  CHECK(*ResourcePath(Nodes(), "", "n-01", "status") == "/api/v1/nodes/n-01/status");
  CHECK(*ResourcePath(Deployments(), "hpc", "web", "scale") ==
        "/apis/apps/v1/namespaces/hpc/deployments/web/scale");
  CHECK(*ResourcePath(kWidgets, "default", "w") ==
        "/apis/testenv.tidepool.dev/v1alpha1/namespaces/default/smokewidgets/w");
  CHECK(*ResourcePath(CustomResourceDefinitions(), "", "a.b.c") ==
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/a.b.c");
  CHECK(Deployments().GroupVersion() == "apps/v1");
  CHECK(Pods().GroupVersion() == "v1");
}

TEST_CASE("paths refuse what would change their meaning") {
  CHECK(ResourcePath(Nodes(), "default").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ResourcePath(ConfigMaps(), "", "x").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(ResourcePath(ConfigMaps(), "default", "", "status").status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK_FALSE(ResourcePath(ConfigMaps(), "default", "../secrets").ok());
  CHECK_FALSE(ResourcePath(ConfigMaps(), "..", "x").ok());
  CHECK_FALSE(ResourcePath(ConfigMaps(), "default", "a%2fb").ok());
  CHECK_FALSE(ResourcePath(ResourceType{"", "v1", "", true}, "default").ok());
}

TEST_CASE("query strings escape values and drop empty ones") {
  CHECK(QueryString({}) == "");
  CHECK(QueryString({{"a", ""}}) == "");
  CHECK(QueryString({{"labelSelector", "app=x,tier!=db"}, {"limit", "10"}, {"continue", ""}}) ==
        "?labelSelector=app%3Dx%2Ctier%21%3Ddb&limit=10");
  CHECK(QueryEscape("a b/c~d_e.f-g") == "a%20b%2Fc~d_e.f-g");
  CHECK(QueryEscape("eyJ2Ijoi+/=") == "eyJ2Ijoi%2B%2F%3D");
}

TEST_CASE("object metadata") {
  absl::StatusOr<ObjectMeta> meta = ParseObjectMeta(
      R"({"metadata":{"name":"x","namespace":"hpc","uid":"u-1","resourceVersion":"42",)"
      R"("generation":3,"labels":{"a":"1","b":"2"},"deletionTimestamp":"2026-01-01T00:00:00Z"}})");
  REQUIRE(meta.ok());
  CHECK(meta->Key() == "hpc/x");
  CHECK(meta->uid == "u-1");
  CHECK(meta->resource_version == "42");
  CHECK(meta->generation == 3);
  CHECK(meta->deleting);
  CHECK(meta->labels == std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}});
  CHECK(ParseObjectMeta(R"({"metadata":{"name":"n-01"}})")->Key() == "n-01");
  CHECK_FALSE(ParseObjectMeta("[]").ok());
  CHECK_FALSE(ParseObjectMeta(R"({"kind":"X"})").ok());
  CHECK_FALSE(ParseObjectMeta(R"({"metadata":{}})").ok());
}

TEST_CASE(
    "list responses: items get kind and apiVersion, lose managedFields; paging fields are read") {
  absl::StatusOr<ListResult> list = ParseList(
      R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"99",)"
      R"("continue":"tok","remainingItemCount":15},"items":[{"metadata":{"name":"a"}},)"
      R"({"metadata":{"name":"b","managedFields":[{"manager":"m"}]},"data":{"k":"v"}}]})");
  REQUIRE(list.ok());
  CHECK(list->resource_version == "99");
  CHECK(list->continue_token == "tok");
  CHECK(list->remaining_item_count == 15);
  REQUIRE(list->items.size() == 2);
  CHECK(list->items[0] == R"({"metadata":{"name":"a"},"kind":"ConfigMap","apiVersion":"v1"})");
  // managedFields are not kept (nothing reads them; they are much of an object's size).
  CHECK(list->items[1] ==
        R"({"metadata":{"name":"b"},"data":{"k":"v"},"kind":"ConfigMap","apiVersion":"v1"})");
  absl::StatusOr<ListResult> empty = ParseList(R"({"kind":"PodList","metadata":{},"items":null})");
  REQUIRE(empty.ok());
  CHECK(empty->items.empty());
  CHECK_FALSE(empty->remaining_item_count.has_value());
  CHECK_FALSE(ParseList("nope").ok());
}

TEST_CASE("scale subresource responses") {
  absl::StatusOr<Scale> scale = ParseScale(
      R"({"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"resourceVersion":"7"},)"
      R"("spec":{"replicas":3},"status":{"replicas":2,"selector":"app=x"}})");
  REQUIRE(scale.ok());
  CHECK(scale->spec_replicas == 3);
  CHECK(scale->status_replicas == 2);
  CHECK(scale->selector == "app=x");
  CHECK(scale->resource_version == "7");
}

}  // namespace
}  // namespace tidepool::k8s
