#pragma once

// What the policy reads of a Slurm job and of a pod's scheduling state, shared by the
// single-pod and the pod-group decisions.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "action.h"
#include "tidepool/pod_view.h"
#include "tidepool/v1/syncer.pb.h"

namespace tidepool::podsched {

// Ended: COMPLETED, CANCELLED, FAILED, TIMEOUT, PREEMPTED, NODE_FAIL, … or finished.
bool JobEnded(const tidepool::v1::SlurmJob& job);
// Started or waiting: not ended.
inline bool JobActive(const tidepool::v1::SlurmJob& job) { return !JobEnded(job); }
bool JobRunning(const tidepool::v1::SlurmJob& job);
std::string JobStates(const tidepool::v1::SlurmJob& job);  // "CANCELLED+COMPLETING"
// The job's nodes expanded ("n-[01-02]" → n-01, n-02); empty when unreadable.
std::vector<std::string> JobNodes(const tidepool::v1::SlurmJob& job);

// The job is the single-pod job of the pod of `uid` (named tidepool-pod-<uid>).
bool IsJobOfPod(const tidepool::v1::SlurmJob& job, absl::string_view uid);
// The pod is bound and has an active single-pod job (tidepool-pod-<uid>) among `pod_jobs`:
// it stays a single pod whatever pod group it names later (annotations can change; moving
// it into a group would cancel the job it runs under).
bool PlacedAsSinglePod(const std::vector<tidepool::v1::SlurmJob>& pod_jobs,
                       const api::PodView& pod);

// tidepool.dev/slurm-job-id of the pod, when it holds a job id.
std::optional<uint32_t> AnnotatedJobId(const api::PodView& pod);
// tidepool.dev/slurm-cluster of the pod: the cluster whose scheduler placed it; "" when
// none is recorded (empty counts as none).
std::string RecordedCluster(const api::PodView& pod);
// Whether the pod's job runs in another SlurmCluster than `cluster_key` ("<ns>/<name>"), by
// its tidepool.dev/slurm-cluster: that cluster's scheduler placed it.
bool PlacedByOtherCluster(const api::PodView& pod, absl::string_view cluster_key);
// Whether the pod records `job_id` as its job in `cluster_key` (both annotations); a pod
// annotated before the cluster was recorded does not.
bool RecordsJob(const api::PodView& pod, uint32_t job_id, absl::string_view cluster_key);
// PodScheduled is already False with this reason (kInvalidPlacementReason unless given)
// and message.
bool AlreadyMarkedInvalid(const api::PodView& pod, const std::string& message,
                          absl::string_view reason = "");

// Of several jobs for one pod or group: the lowest-numbered active one, else the latest
// ended one; null for none.
const tidepool::v1::SlurmJob* PrimaryJob(const std::vector<const tidepool::v1::SlurmJob*>& jobs);

// Slurm answered and refused a submission (a bad partition, GRES it does not have, …), as
// opposed to the call not reaching it or the syncer's own credentials failing: the pod
// then says why it has no job.
bool SlurmRefusedSubmission(const absl::Status& status);
// The other side: the call may have reached Slurm and made the job, but no answer came
// back (a deadline passed, the connection dropped); doubtful_submits.h waits for it.
bool SubmissionInDoubt(const absl::Status& status);

Action CancelJobAction(const tidepool::v1::SlurmJob& job, absl::string_view why);
Action DeleteForEndedJob(const tidepool::v1::SlurmJob& job, std::string pod = "");

}  // namespace tidepool::podsched
