#include "slurm/conf/content_hash.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::slurm {
namespace {

TEST_CASE("ContentHash is a sha256 that ignores file order and sees every byte") {
  const std::string hash = ContentHash({{"slurm.conf", "A=1\n"}, {"gres.conf", ""}});
  CHECK(hash.rfind("sha256:", 0) == 0);
  CHECK(hash.size() == 7 + 64);
  CHECK(hash == ContentHash({{"gres.conf", ""}, {"slurm.conf", "A=1\n"}}));
  CHECK(hash != ContentHash({{"slurm.conf", "A=2\n"}, {"gres.conf", ""}}));
  // Moving bytes between a name and a content must change the hash.
  CHECK(ContentHash({{"ab", "c"}}) != ContentHash({{"a", "bc"}}));
}

TEST_CASE("ContentHash of nothing is the sha256 of the empty stream") {
  CHECK(ContentHash({}) ==
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace tidepool::slurm
