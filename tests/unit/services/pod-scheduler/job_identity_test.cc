#include "job_identity.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::podsched {
namespace {

TEST_CASE("a placeholder job's name carries the pod uid and nothing else matches") {
  CHECK(JobNameFor("4f1c-9a") == "tidepool-pod-4f1c-9a");
  CHECK(PodUidOfJobName("tidepool-pod-4f1c-9a") == "4f1c-9a");
  CHECK_FALSE(PodUidOfJobName("tidepool-pod-").has_value());
  CHECK_FALSE(PodUidOfJobName("train-llm").has_value());
}

TEST_CASE("a placeholder job's comment carries the pod key, with or without a user comment") {
  CHECK(JobCommentFor("ml", "train-0", "") == "pod ml/train-0");
  CHECK(JobCommentFor("ml", "train-0", "run 7: warm") == "pod ml/train-0: run 7: warm");
  CHECK(PodKeyOfJobComment("pod ml/train-0") == "ml/train-0");
  CHECK(PodKeyOfJobComment("pod ml/train-0: run 7: warm") == "ml/train-0");
  for (const char* other :
       {"", "ml/train-0", "pod ", "pod ml", "pod /x", "pod ml/", "pod a/b/c", "pod ml/x y"}) {
    INFO(other);
    CHECK_FALSE(PodKeyOfJobComment(other).has_value());
  }
}

}  // namespace
}  // namespace tidepool::podsched
