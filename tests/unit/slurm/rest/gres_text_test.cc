#include "slurm/rest/gres_text.h"

#include <catch2/catch_test_macros.hpp>

namespace tidepool::slurm::rest {
namespace {

TEST_CASE("GresCount sums a name's entries as slurmrestd reports them") {
  CHECK(GresCount("gpu:h100:8(S:0-1)", "gpu") == 8);
  CHECK(GresCount("gpu:h100:4(IDX:0-3)", "gpu") == 4);
  CHECK(GresCount("gpu:4(IDX:0,2-3)", "gpu") == 4);
  CHECK(GresCount("gpu:a100:2(S:0),gpu:h100:3(S:1),shard:8", "gpu") == 5);
  CHECK(GresCount("gpu:a100:2(IDX:0,1),shard:8(0/8,0/8)", "shard") == 8);
  CHECK(GresCount("gpu:h100:0(IDX:N/A)", "gpu") == 0);
}

TEST_CASE("GresCount reads nothing it does not understand as 0") {
  CHECK(GresCount("", "gpu") == 0);
  CHECK(GresCount("N/A", "gpu") == 0);
  CHECK(GresCount("gpu", "gpu") == 0);
  CHECK(GresCount("gpu:h100:many", "gpu") == 0);
  CHECK(GresCount("gpu:h100:-3", "gpu") == 0);
  CHECK(GresCount("gpu:a:b:4", "gpu") == 0);
  CHECK(GresCount("gpugpu:4", "gpu") == 0);
  CHECK(GresCount("gpu:2(S:0,gpu:3", "gpu") == 2);
}

}  // namespace
}  // namespace tidepool::slurm::rest
