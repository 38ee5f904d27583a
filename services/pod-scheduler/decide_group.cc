#include "decide_group.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "job_facts.h"
#include "job_identity.h"
#include "job_spec.h"
#include "pod_group.h"
#include "tidepool/contract.h"

namespace tidepool::podsched {
namespace {

using tidepool::v1::SlurmJob;

struct Members {
  std::vector<const ScheduledPod*> live;  // by name
  std::string ended;                      // why the group lost a member; "" when none did
  std::string job_name;                   // of the live members' job
};

bool Listed(const GroupInput& input, const std::function<bool(const SlurmJob&)>& matches) {
  return std::any_of(input.jobs.begin(), input.jobs.end(), matches);
}

// Whether members that ended (deleted or finished) were part of a job of the group still
// listed: one carries an active job's id, or a job is named for them and the live ones
// together. Others are history (a finished pod of an earlier run, a pending pod deleted and
// replaced): counting them as lost would cancel every new job of the group, and then
// delete its live members, again and again.
bool EndedBelongToListedJob(const GroupInput& input, const std::vector<std::string>& live_uids,
                            const std::vector<const ScheduledPod*>& ended) {
  for (const ScheduledPod* member : ended) {
    if (std::optional<uint32_t> id = AnnotatedJobId(member->pod);
        id.has_value() &&
        Listed(input, [&](const SlurmJob& job) { return job.job_id() == *id && JobActive(job); })) {
      return true;
    }
  }
  std::vector<std::string> uids = live_uids;
  for (const ScheduledPod* member : ended) uids.push_back(member->pod.uid);
  const std::string whole = GroupJobNameFor(GroupFingerprint(uids));
  return Listed(input, [&](const SlurmJob& job) { return job.name() == whole; });
}

std::string WhyEnded(const GroupInput& input, const ScheduledPod& member) {
  return member.pod.deleting
             ? absl::StrCat("pod ", member.pod.name, " of group ", input.group, " is being deleted")
             : absl::StrCat("pod ", member.pod.name, " of group ", input.group, " has ",
                            member.pod.phase);
}

Members Split(const GroupInput& input) {
  Members out;
  std::vector<std::string> uids;
  std::vector<const ScheduledPod*> ended;
  for (const ScheduledPod* member : input.members) {
    if (member->pod.deleting || member->Finished()) {
      ended.push_back(member);
    } else {
      out.live.push_back(member);
      uids.push_back(member->pod.uid);
    }
  }
  if (!ended.empty() && EndedBelongToListedJob(input, uids, ended)) {
    out.ended = WhyEnded(input, *ended.back());
  }
  std::sort(out.live.begin(), out.live.end(),
            [](const ScheduledPod* a, const ScheduledPod* b) { return a->pod.name < b->pod.name; });
  out.job_name = GroupJobNameFor(GroupFingerprint(uids));
  return out;
}

void Append(std::vector<Action>& to, std::vector<Action> more) {
  to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

std::vector<Action> MarkAll(const Members& members, const std::string& message) {
  std::vector<Action> actions;
  for (const ScheduledPod* member : members.live) {
    if (AlreadyMarkedInvalid(member->pod, message)) continue;
    actions.push_back({.kind = Action::Kind::kMarkUnschedulable,
                       .pod = member->pod.name,
                       .reason = api::kInvalidPlacementReason,
                       .message = message});
  }
  return actions;
}

std::vector<Action> DeleteAll(const Members& members, const Action& prototype) {
  std::vector<Action> actions;
  for (const ScheduledPod* member : members.live) {
    Action action = prototype;
    action.pod = member->pod.name;
    actions.push_back(std::move(action));
  }
  return actions;
}

std::vector<Action> WithoutJob(const GroupInput& input, const Members& members,
                               const ClusterView& cluster) {
  if (!input.jobs_view_fresh) return {};
  // One member another cluster placed makes the group that cluster's (its job is in the
  // other Slurm): none of it is deleted or placed here, not even a member on our Nodes.
  for (const ScheduledPod* member : members.live) {
    if (AnnotatedJobId(member->pod).has_value() &&
        BoundOutsideWithoutRecordedCluster(member->pod, cluster)) {
      return {};
    }
  }
  std::vector<Action> actions;
  for (const ScheduledPod* member : members.live) {
    if (std::optional<uint32_t> id = AnnotatedJobId(member->pod)) {
      actions.push_back({.kind = Action::Kind::kDeletePod,
                         .pod = member->pod.name,
                         .job_id = *id,
                         .reason = api::kJobEndedReason,
                         .message = absl::StrCat("Slurm job ", *id, " of pod group ", input.group,
                                                 " is gone from Slurm"),
                         .job_missing = true});
    }
  }
  if (!actions.empty()) return actions;
  absl::StatusOr<tidepool::v1::JobSpec> spec =
      JobSpecForGroup(input.ns, input.group, members.live, cluster.gpu_type);
  if (spec.ok()) {
    if (absl::Status allowed = cluster.placement_policy.Allows(*spec, input.ns); !allowed.ok()) {
      spec = allowed;
    }
  }
  if (!spec.ok()) return MarkAll(members, std::string(spec.status().message()));
  const int64_t size = spec->tasks();
  const int64_t count = static_cast<int64_t>(members.live.size());
  if (count < size) return {};  // the rest of the group is yet to come
  if (count > size) {
    return MarkAll(members, absl::StrCat("pod group ", input.group, " has ", count, " pods, but ",
                                         api::kPodGroupSizeAnnotation, " is ", size));
  }
  return {{.kind = Action::Kind::kSubmit, .spec = *std::move(spec)}};
}

// Members bound already keep their Node; the others take the job's remaining Nodes in
// name order. Nothing is bound until every Slurm node of the job has a Node.
std::vector<Action> BindAll(const GroupInput& input, const Members& members, const SlurmJob& job,
                            const ClusterView& cluster) {
  std::vector<std::string> nodes;
  for (const std::string& slurm_node : JobNodes(job)) {
    std::optional<std::string> node = cluster.NodeFor(slurm_node);
    if (!node.has_value()) {
      return {{.kind = Action::Kind::kWaitForNode,
               .pod = members.live.front()->pod.name,
               .job_id = job.job_id(),
               .message = absl::StrCat("Slurm job ", job.job_id(), " of pod group ", input.group,
                                       " runs on \"", slurm_node,
                                       "\", which has no slurmd pod of this cluster's NodeSets")}};
    }
    nodes.push_back(*node);
  }
  std::multiset<std::string> free(nodes.begin(), nodes.end());
  for (const ScheduledPod* member : members.live) {
    if (auto it = free.find(member->pod.node_name); it != free.end()) free.erase(it);
  }
  std::vector<Action> actions;
  for (const ScheduledPod* member : members.live) {
    if (!member->pod.node_name.empty() || free.empty()) continue;
    actions.push_back({.kind = Action::Kind::kBind,
                       .pod = member->pod.name,
                       .job_id = job.job_id(),
                       .node = *free.begin()});
    free.erase(free.begin());
  }
  return actions;
}

std::vector<Action> WithJob(const GroupInput& input, const Members& members, const SlurmJob& job,
                            const ClusterView& cluster) {
  std::vector<Action> actions;
  for (const ScheduledPod* member : members.live) {
    if (!RecordsJob(member->pod, job.job_id(), cluster.cluster_key)) {
      actions.push_back(
          {.kind = Action::Kind::kAnnotateJobId, .pod = member->pod.name, .job_id = job.job_id()});
    }
  }
  const bool any_bound =
      std::any_of(members.live.begin(), members.live.end(),
                  [](const ScheduledPod* m) { return !m->pod.node_name.empty(); });
  if (JobEnded(job)) {
    Append(actions, DeleteAll(members, DeleteForEndedJob(job)));
  } else if (JobRunning(job) && !job.nodes().empty()) {
    Append(actions, BindAll(input, members, job, cluster));
  } else if (any_bound) {
    Append(actions,
           DeleteAll(members, {.kind = Action::Kind::kDeletePod,
                               .job_id = job.job_id(),
                               .reason = api::kJobEndedReason,
                               .message = absl::StrCat("Slurm job ", job.job_id(),
                                                       " left its nodes: ", JobStates(job))}));
  }
  return actions;
}

bool AnnotatedOnAny(const Members& members, uint32_t job_id) {
  return std::any_of(members.live.begin(), members.live.end(), [&](const ScheduledPod* member) {
    return AnnotatedJobId(member->pod) == job_id;
  });
}

// The group lost a member (deleted or finished, or gone from the cache already, which
// shows only as the live members' job not being theirs any more): its job is cancelled
// (DecideGroup) and the rest go with it once it ended. While it is still listed active
// they wait; their job is not missing. nullopt: no such job, decide without one.
std::optional<std::vector<Action>> AfterLostMember(const GroupInput& input,
                                                   const Members& members) {
  std::vector<const SlurmJob*> lost;
  for (const SlurmJob& job : input.jobs) {
    if (!members.ended.empty() || AnnotatedOnAny(members, job.job_id())) lost.push_back(&job);
  }
  for (const SlurmJob* job : lost) {
    if (JobEnded(*job)) return DeleteAll(members, DeleteForEndedJob(*job));
  }
  if (!lost.empty()) return std::vector<Action>{};  // every one still active
  return std::nullopt;
}

}  // namespace

std::vector<Action> DecideGroup(const GroupInput& input, const ClusterView& cluster) {
  const Members members = Split(input);
  std::vector<Action> actions;
  std::vector<const SlurmJob*> own;
  for (const SlurmJob& job : input.jobs) {
    const bool current = job.name() == members.job_name && members.ended.empty();
    if (current) {
      own.push_back(&job);
    } else if (JobActive(job)) {
      actions.push_back(CancelJobAction(
          job, members.ended.empty() ? absl::StrCat("the pods of group ", input.group, " changed")
                                     : members.ended));
    }
  }
  if (members.live.empty()) return actions;
  const SlurmJob* primary = PrimaryJob(own);
  for (const SlurmJob* job : own) {
    if (job != primary && JobActive(*job)) {
      actions.push_back(
          CancelJobAction(*job, absl::StrCat("a duplicate of job ", primary->job_id())));
    }
  }
  if (primary == nullptr) {
    if (input.jobs_view_fresh) {
      if (std::optional<std::vector<Action>> after = AfterLostMember(input, members)) {
        Append(actions, *std::move(after));
        return actions;
      }
    }
    Append(actions, WithoutJob(input, members, cluster));
    return actions;
  }
  Append(actions, WithJob(input, members, *primary, cluster));
  return actions;
}

}  // namespace tidepool::podsched
