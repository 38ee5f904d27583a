#include "k8s/ownership.h"

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"

namespace tidepool::k8s {
namespace {

constexpr char kNodeSet[] = R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet",
    "metadata":{"name":"h100","namespace":"hpc","uid":"ns-uid"}})";
constexpr char kOtherNodeSet[] = R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet",
    "metadata":{"name":"h200","namespace":"hpc","uid":"other-uid"}})";
constexpr char kPod[] = R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"slurmd-n-01","namespace":"hpc","resourceVersion":"10",
    "ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"cfg","uid":"cfg-uid"}]}})";

TEST_CASE("SetControllerReference adds a controller reference and keeps other owners") {
  const std::string owned = SetControllerReference(kNodeSet, kPod).value();
  const std::vector<OwnerReference> refs = OwnerReferences(owned).value();
  REQUIRE(refs.size() == 2);
  CHECK(refs[0] ==
        OwnerReference{.api_version = "v1", .kind = "ConfigMap", .name = "cfg", .uid = "cfg-uid"});
  CHECK(refs[1] == OwnerReference{.api_version = "tidepool.dev/v1alpha1",
                                  .kind = "NodeSet",
                                  .name = "h100",
                                  .uid = "ns-uid",
                                  .controller = true,
                                  .block_owner_deletion = true});
  CHECK(ControllerOf(owned)->value().name == "h100");
  CHECK(IsControlledBy(owned, kNodeSet));
  CHECK_FALSE(IsControlledBy(owned, kOtherNodeSet));
  CHECK_FALSE(IsControlledBy(kPod, kNodeSet));
  CHECK(absl::StrContains(owned, R"("resourceVersion":"10")"));

  // Again (another version of the same owner, e.g. after an upgrade): replaced, not added.
  const std::string v2_owner = R"({"apiVersion":"tidepool.dev/v1beta1","kind":"NodeSet",
      "metadata":{"name":"h100","namespace":"hpc","uid":"ns-uid"}})";
  const std::string again = SetControllerReference(v2_owner, owned).value();
  REQUIRE(OwnerReferences(again)->size() == 2);
  CHECK(ControllerOf(again)->value().api_version == "tidepool.dev/v1beta1");
}

TEST_CASE("SetControllerReference refuses a second controller and impossible owners") {
  const std::string owned = SetControllerReference(kNodeSet, kPod).value();
  const absl::Status taken = SetControllerReference(kOtherNodeSet, owned).status();
  CHECK(taken.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(absl::StrContains(taken.message(), "already controlled by NodeSet h100"));

  const std::string elsewhere = R"({"apiVersion":"v1","kind":"Pod",
      "metadata":{"name":"p","namespace":"other"}})";
  const absl::Status cross = SetControllerReference(kNodeSet, elsewhere).status();
  CHECK(cross.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(cross.message(), "owners must be in the object's namespace"));

  const std::string node = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n-01"}})";
  CHECK(absl::StrContains(SetControllerReference(kNodeSet, node).status().message(),
                          "a cluster-scoped object cannot have a namespaced owner"));
  // A cluster-scoped owner may own a namespaced object.
  const std::string cluster_owner =
      R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n-01","uid":"node-uid"}})";
  CHECK(IsControlledBy(SetControllerReference(cluster_owner, kPod).value(), cluster_owner));

  const std::string unsaved = R"({"apiVersion":"tidepool.dev/v1alpha1","kind":"NodeSet",
      "metadata":{"name":"h100","namespace":"hpc"}})";
  CHECK(
      absl::StrContains(SetControllerReference(unsaved, kPod).status().message(), "metadata.uid"));
  CHECK(SetControllerReference("nope", kPod).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("finalizer patches are conditional on the resourceVersion") {
  const std::string object = R"({"metadata":{"name":"c","namespace":"hpc",
      "resourceVersion":"31","finalizers":["other.io/keep"]}})";
  CHECK(HasFinalizer(object, "other.io/keep"));
  CHECK_FALSE(HasFinalizer(object, "tidepool.dev/cleanup"));

  CHECK(
      AddFinalizerPatch(object, "tidepool.dev/cleanup").value() ==
      R"({"metadata":{"resourceVersion":"31","finalizers":["other.io/keep","tidepool.dev/cleanup"]}})");
  CHECK(AddFinalizerPatch(object, "other.io/keep").value() == std::nullopt);  // already there

  CHECK(RemoveFinalizerPatch(object, "tidepool.dev/cleanup").value() == std::nullopt);
  CHECK(RemoveFinalizerPatch(object, "other.io/keep").value() ==
        R"({"metadata":{"resourceVersion":"31","finalizers":null}})");

  const std::string two = R"({"metadata":{"name":"c","resourceVersion":"5",
      "finalizers":["a.io/x","b.io/y"]}})";
  CHECK(RemoveFinalizerPatch(two, "a.io/x").value() ==
        R"({"metadata":{"resourceVersion":"5","finalizers":["b.io/y"]}})");

  const std::string no_finalizers = R"({"metadata":{"name":"c","resourceVersion":"9"}})";
  CHECK(Finalizers(no_finalizers)->empty());
  CHECK(AddFinalizerPatch(no_finalizers, "a.io/x").value() ==
        R"({"metadata":{"resourceVersion":"9","finalizers":["a.io/x"]}})");

  const absl::Status unversioned =
      AddFinalizerPatch(R"({"metadata":{"name":"c","namespace":"hpc"}})", "a.io/x").status();
  CHECK(unversioned.code() == absl::StatusCode::kInvalidArgument);
  CHECK(absl::StrContains(unversioned.message(), "\"hpc/c\" has no metadata.resourceVersion"));
  CHECK(AddFinalizerPatch(no_finalizers, "").status().code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tidepool::k8s
