#include "pod_group.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "job_identity.h"

namespace tidepool::podsched {
namespace {

api::PodView Pod(std::map<std::string, std::string> annotations) {
  api::PodView pod;
  pod.annotations = std::move(annotations);
  return pod;
}

TEST_CASE("a pod's group and size come from its annotations") {
  CHECK_FALSE(PodGroupOf(Pod({})).has_value());
  CHECK(PodGroupOf(Pod({{"tidepool.dev/pod-group", "train"}})) == "train");
  CHECK(PodGroupSize(Pod({{"tidepool.dev/pod-group-size", "4"}})).value_or(0) == 4);
  for (const char* bad : {"0", "-1", "four", "1025", "4 "}) {
    absl::StatusOr<int> size = PodGroupSize(Pod({{"tidepool.dev/pod-group-size", bad}}));
    INFO(bad);
    REQUIRE_FALSE(size.ok());
    CHECK(absl::StartsWith(size.status().message(), "annotation tidepool.dev/pod-group-size: \""));
  }
  CHECK(absl::StrContains(PodGroupSize(Pod({})).status().message(), "is missing"));
}

TEST_CASE("a group name is a DNS label") {
  CHECK(ValidGroupName("train-7").ok());
  for (const char* bad : {"", "Train", "a_b", "-a", "a-", "a/b"}) {
    INFO(bad);
    CHECK(absl::StrContains(ValidGroupName(bad).message(), "annotation tidepool.dev/pod-group"));
  }
  CHECK_FALSE(ValidGroupName(std::string(64, 'a')).ok());
}

TEST_CASE("group keys round-trip and differ from pod keys") {
  CHECK(GroupKey("ml", "train") == "group/ml/train");
  CHECK(ParseGroupKey("group/ml/train") == std::make_pair(std::string("ml"), std::string("train")));
  CHECK_FALSE(ParseGroupKey("ml/train").has_value());
  CHECK_FALSE(ParseGroupKey("group/ml").has_value());
}

TEST_CASE("the fingerprint is stable, ignores order and changes with membership") {
  const std::string ab = GroupFingerprint({"uid-a", "uid-b"});
  CHECK(ab.size() == 16);
  CHECK(GroupFingerprint({"uid-b", "uid-a"}) == ab);
  CHECK(GroupFingerprint({"uid-a", "uid-c"}) != ab);
  CHECK(GroupFingerprint({"uid-a"}) != ab);
  CHECK(GroupFingerprint({"uid-ab"}) != GroupFingerprint({"uid-a", "b"}));
  CHECK(GroupFingerprint({}) == "cbf29ce484222325");  // FNV-1a's offset: nothing hashed
}

TEST_CASE("a group job's name and comment give the group key; other jobs give none") {
  CHECK(SyncKeyOfJob(GroupJobNameFor("0123456789abcdef"), GroupJobCommentFor("ml", "train", "")) ==
        "group/ml/train");
  CHECK(SyncKeyOfJob("tidepool-group-x", "group ml/train: nightly") == "group/ml/train");
  CHECK(SyncKeyOfJob("tidepool-pod-u1", "pod ml/a") == "ml/a");
  CHECK_FALSE(SyncKeyOfJob("tidepool-group-x", "pod ml/a").has_value());
  CHECK_FALSE(SyncKeyOfJob("tidepool-pod-u1", "group ml/train").has_value());
  CHECK_FALSE(SyncKeyOfJob("batch", "group ml/train").has_value());
}

}  // namespace
}  // namespace tidepool::podsched
