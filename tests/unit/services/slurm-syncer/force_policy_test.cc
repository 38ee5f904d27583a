#include "force_policy.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::syncer {
namespace {

TEST_CASE("Nobody may force by default; a listed identity or '*' may") {
  const std::vector<std::string> nodeset = {"nodeset-controller"};
  const std::vector<std::string> plaintext = {};
  CHECK_FALSE(MayForce({}, nodeset));
  CHECK_FALSE(MayForce({}, plaintext));
  CHECK(MayForce({"nodeset-controller"}, nodeset));
  CHECK_FALSE(MayForce({"pod-scheduler"}, nodeset));
  CHECK_FALSE(MayForce({"nodeset-controller"}, plaintext));
  CHECK(MayForce({"*"}, plaintext));
  CHECK(MayForce({"ops-tool", "*"}, nodeset));
}

}  // namespace
}  // namespace tidepool::syncer
