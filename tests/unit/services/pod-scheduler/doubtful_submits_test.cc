#include "doubtful_submits.h"

#include <catch2/catch_test_macros.hpp>

#include "job_facts.h"

namespace tidepool::podsched {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST_CASE("a submission without an answer waits for its job to show before the next") {
  DoubtfulSubmits doubts(absl::Seconds(10));
  CHECK(doubts.WaitLeft("ml/a", kStart) == absl::ZeroDuration());
  doubts.Failed("ml/a", absl::DeadlineExceededError("SubmitJob: deadline"), kStart);
  CHECK(doubts.WaitLeft("ml/a", kStart + absl::Seconds(3)) == absl::Seconds(7));
  CHECK(doubts.WaitLeft("ml/b", kStart + absl::Seconds(3)) == absl::ZeroDuration());
  CHECK(doubts.WaitLeft("ml/a", kStart + absl::Seconds(10)) == absl::ZeroDuration());
  // Once over, the wait is not owed again.
  CHECK(doubts.WaitLeft("ml/a", kStart + absl::Seconds(4)) == absl::ZeroDuration());
  // A clock stepped back holds the pod no longer than the wait.
  doubts.Failed("ml/a", absl::UnavailableError("connection reset"), kStart);
  CHECK(doubts.WaitLeft("ml/a", kStart - absl::Hours(1)) == absl::Seconds(10));
}

TEST_CASE("a refusal made no job: the next submission need not wait") {
  DoubtfulSubmits doubts(absl::Seconds(10));
  for (const absl::Status& refused :
       {absl::InvalidArgumentError("Slurm: invalid partition"),
        absl::FailedPreconditionError("syncer serves another cluster"),
        absl::PermissionDeniedError("not allowed"), absl::InternalError("Slurm error 2051")}) {
    CAPTURE(refused.ToString());
    doubts.Failed("ml/a", refused, kStart);
    CHECK(doubts.WaitLeft("ml/a", kStart) == absl::ZeroDuration());
  }
  for (const absl::Status& lost :
       {absl::DeadlineExceededError(""), absl::UnavailableError("connection reset"),
        absl::CancelledError(""), absl::UnknownError("")}) {
    CAPTURE(lost.ToString());
    CHECK(SubmissionInDoubt(lost));
  }
}

}  // namespace
}  // namespace tidepool::podsched
