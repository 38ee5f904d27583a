#pragma once

// What the pod-scheduler's policy (decide.h, decide_group.h) asks sync.cc to do.

#include <cstdint>
#include <string>

#include "tidepool/v1/syncer.pb.h"

namespace tidepool::podsched {

struct Action {
  enum class Kind {
    kSubmit,             // spec
    kAnnotateJobId,      // job_id
    kBind,               // node, job_id
    kDeletePod,          // reason, message, job_id
    kCancelJob,          // job_id, reason, message
    kMarkUnschedulable,  // reason, message: PodScheduled=False plus a Warning event
    kWaitForNode,        // message: the job runs on a Slurm node with no slurmd pod known
  };
  Kind kind;
  std::string pod;  // the pod acted on (a pod group has several); "" for a single pod
  tidepool::v1::JobSpec spec;
  uint32_t job_id = 0;
  std::string node;
  std::string reason;
  std::string message;
  // kDeletePod: the pod's annotated job is missing from the job view, which may trail
  // Slurm; the pod goes only once the job has stayed missing for a while (missing_jobs.h).
  bool job_missing = false;
};

}  // namespace tidepool::podsched
