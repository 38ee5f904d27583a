#include "config_builders.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"
#include "builder_test_support.h"
#include "k8s/object_json.h"

namespace tidepool::cluster {
namespace {

v1::SlurmCluster Cluster() { return ResearchCluster(); }

const absl::Time kWritten = absl::FromUnixMicros(1'800'000'000'250'000);

std::string Body() {
  v1::RenderResponse rendered;
  rendered.set_config_hash("sha256:abc");
  auto* file = rendered.add_files();
  file->set_name("slurm.conf");
  file->set_content("ClusterName=research\n");
  return ConfigMapApplyBody(Cluster(), rendered, kWritten);
}

TEST_CASE("the ConfigMap carries the files, labels, hash, write time and its owner") {
  const std::string body = Body();
  CHECK(absl::StrContains(body, R"("name":"research-slurm-config","namespace":"hpc")"));
  CHECK(absl::StrContains(body, R"("tidepool.dev/component":"slurm-config")"));
  CHECK(absl::StrContains(body, R"("tidepool.dev/cluster":"research")"));
  CHECK(absl::StrContains(body, R"("tidepool.dev/config-hash":"sha256:abc")"));
  CHECK(absl::StrContains(body, R"("tidepool.dev/config-written-at":")"));
  CHECK(absl::StrContains(
      body, R"("kind":"SlurmCluster","name":"research","uid":"uid-1","controller":true)"));
  CHECK(absl::StrContains(body, R"("data":{"slurm.conf":"ClusterName=research\n"})"));
}

TEST_CASE("the hash and the write time read back from the ConfigMap") {
  const std::string body = Body();
  CHECK(ConfigMapHash(body) == "sha256:abc");
  REQUIRE(ConfigMapWrittenAt(body).has_value());
  CHECK(*ConfigMapWrittenAt(body) == kWritten);  // to the microsecond
  const std::string old = R"({"metadata":{"annotations":{"tidepool.dev/config-hash":"h"}}})";
  CHECK(ConfigMapHash(old) == "h");
  CHECK_FALSE(ConfigMapWrittenAt(old).has_value());
  CHECK_FALSE(ConfigMapWrittenAt(
                  R"({"metadata":{"annotations":{"tidepool.dev/config-written-at":"soon"}}})")
                  .has_value());
}

TEST_CASE("reconfigure waits out the propagation delay from the ConfigMap's write time") {
  const absl::Duration delay = absl::Seconds(5);
  // A new leader reading a ConfigMap its predecessor wrote 2 s ago waits 3 s more.
  CHECK(WaitLeft(kWritten, delay, kWritten + absl::Seconds(2)) == absl::Seconds(3));
  CHECK(WaitLeft(kWritten, delay, kWritten + absl::Seconds(6)) <= absl::ZeroDuration());
  // Written by a controller that kept no time: long propagated.
  CHECK(WaitLeft(std::nullopt, delay, kWritten) == absl::ZeroDuration());
  // Written "in an hour" (a clock ahead, an edited annotation): no longer than the delay.
  CHECK(WaitLeft(kWritten + absl::Hours(1), delay, kWritten) == delay);
}

TEST_CASE("a pod's config-hash annotation patch") {
  CHECK(ConfigHashAnnotationPatch("sha256:abc") ==
        R"({"metadata":{"annotations":{"tidepool.dev/config-hash":"sha256:abc"}}})");
}

}  // namespace
}  // namespace tidepool::cluster
