#include "submitted_job.h"

#include <utility>

namespace tidepool::syncer {

slurm::rest::Job PendingAsSubmitted(const slurm::rest::JobSubmission& submission,
                                    slurm::rest::JobId id, std::string user, absl::Time submitted) {
  slurm::rest::Job job;
  job.id = id;
  job.name = submission.name;
  job.state = {slurm::rest::kPendingState};
  job.partition = submission.partition;
  job.user = std::move(user);
  job.reason = "None";  // until Slurm's scheduler looks at it
  job.submit_time = submitted;
  job.time_limit_minutes = submission.time_limit_minutes;
  job.comment = submission.comment;
  return job;
}

}  // namespace tidepool::syncer
