#include "k8s/dns_names.h"

#include <catch2/catch_test_macros.hpp>
#include <string>

namespace tidepool::k8s {
namespace {

TEST_CASE("DNS labels are lowercase letters, digits and inner dashes, 1-63 long") {
  CHECK(IsDnsLabel("hpc"));
  CHECK(IsDnsLabel("sc-26-05"));
  CHECK(IsDnsLabel(std::string(63, 'a')));
  CHECK_FALSE(IsDnsLabel(""));
  CHECK_FALSE(IsDnsLabel(std::string(64, 'a')));
  CHECK_FALSE(IsDnsLabel("-hpc"));
  CHECK_FALSE(IsDnsLabel("hpc-"));
  CHECK_FALSE(IsDnsLabel("Hpc"));
  CHECK_FALSE(IsDnsLabel("h.pc"));
  CHECK_FALSE(IsDnsLabel("h_pc"));
}

TEST_CASE("DNS subdomains are labels joined by dots, at most 253 long") {
  CHECK(IsDnsSubdomain("cluster.local"));
  CHECK(IsDnsSubdomain("research"));
  CHECK_FALSE(IsDnsSubdomain(""));
  CHECK_FALSE(IsDnsSubdomain("cluster..local"));
  CHECK_FALSE(IsDnsSubdomain(".cluster"));
  CHECK_FALSE(IsDnsSubdomain("cluster.Local"));
  std::string long_name;
  for (int i = 0; i < 4; ++i) long_name += std::string(63, 'a') + ".";
  long_name.pop_back();  // 4 × 63 + 3 dots = 255
  CHECK_FALSE(IsDnsSubdomain(long_name));
}

}  // namespace
}  // namespace tidepool::k8s
