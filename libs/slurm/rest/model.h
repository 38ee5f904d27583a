#pragma once

// The typed view of what slurmrestd serves (data_parser v0.0.42–v0.0.45). The JSON
// mapping for every type lives in json_mapping.h; nothing else reads Slurm's JSON.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace tidepool::slurm::rest {

// Node state: one base state plus flags, as slurmrestd lists them ("IDLE", "DRAIN", …).
enum class NodeState : uint8_t {
  // Base states.
  kUnknown,
  kDown,
  kIdle,
  kAllocated,
  kError,
  kMixed,
  kFuture,
  // Flags.
  kReserved,
  kUndrain,
  kCloud,
  kResume,
  kDrain,
  kCompleting,
  kNotResponding,
  kPoweredDown,
  kFail,
  kPoweringUp,
  kMaintenance,
  kRebootRequested,
  kRebootCanceled,
  kPoweringDown,
  kDynamicFuture,
  kRebootIssued,
  kPlanned,
  kInvalidReg,
  kPowerDown,
  kPowerUp,
  kPowerDrain,
  kDynamicNorm,
  kBlocked,
  kInvalid,
};

// "IDLE" for kIdle, "NOT_RESPONDING" for kNotResponding, …
absl::string_view NodeStateName(NodeState state);
// The state a name stands for; nullopt for a name this client does not know.
std::optional<NodeState> ParseNodeState(absl::string_view name);

// A set of node states as a bitmask; names this client does not know are kept as given.
class NodeStateSet {
 public:
  NodeStateSet() = default;
  NodeStateSet(std::initializer_list<NodeState> states) {
    for (NodeState s : states) Add(s);
  }
  void Add(NodeState state) { bits_ |= Bit(state); }
  // Adds the state `name` stands for, or records it in unknown().
  void AddName(absl::string_view name);
  bool Has(NodeState state) const { return (bits_ & Bit(state)) != 0; }
  bool empty() const { return bits_ == 0 && unknown_.empty(); }
  uint64_t bits() const { return bits_; }
  const std::vector<std::string>& unknown() const { return unknown_; }
  // "IDLE+DRAIN" (known states in enum order, then unknown names).
  std::string ToString() const;
  bool operator==(const NodeStateSet& other) const = default;

 private:
  static uint64_t Bit(NodeState state) { return uint64_t{1} << static_cast<unsigned>(state); }
  uint64_t bits_ = 0;
  std::vector<std::string> unknown_;
};

struct Node {
  std::string name;
  NodeStateSet state;
  std::string reason;
  std::string reason_set_by_user;
  std::optional<absl::Time> reason_changed_at;  // unset when Slurm reports 0 or nothing
  std::string comment;
  int64_t cpus = 0;
  int64_t alloc_cpus = 0;
  int64_t real_memory_mb = 0;
  int64_t alloc_memory_mb = 0;
  std::string gres;       // "gpu:h100:8(S:0-1)"
  std::string gres_used;  // "gpu:h100:0(IDX:N/A)"
  std::vector<std::string> features;
  std::vector<std::string> active_features;
  std::vector<std::string> partitions;
  std::string address;
  std::string hostname;
  std::string version;  // slurmd's version, "26.05.5"

  bool operator==(const Node& other) const = default;
};

struct NodeList {
  // True when the server answered "not modified since update_time" (GetNodesSince);
  // nodes is then empty and last_update is the time asked about.
  bool unchanged = false;
  std::vector<Node> nodes;
  // The server's time of its last node change: pass it to the next GetNodesSince.
  absl::Time last_update = absl::InfinitePast();
};

// What UpdateNode changes; unset fields are left alone.
struct NodeUpdate {
  enum class State { kNone, kDrain, kUndrain, kResume, kDown, kIdle };
  State state = State::kNone;
  std::string reason;  // sent with every state change (Slurm requires one for DRAIN/DOWN)
  std::optional<std::string> comment;
  // Available and active features; an empty list clears them (clearing the available
  // ones clears the active ones too).
  std::optional<std::vector<std::string>> features;
  std::optional<std::vector<std::string>> active_features;
};

using JobId = uint32_t;

struct JobExit {
  std::optional<int64_t> return_code;  // unset when the job has not ended or was signalled
  std::optional<int64_t> signal;       // the signal that ended it, if one did
  std::vector<std::string> status;     // "SUCCESS", "ERROR", "SIGNALED", …

  bool operator==(const JobExit& other) const = default;
};

inline constexpr char kPendingState[] = "PENDING";

// Slurm's primary state in a state list: its first entry ("" if none); flags follow it.
inline std::string PrimaryStateOf(const std::vector<std::string>& state) {
  return state.empty() ? "" : state.front();
}

struct Job {
  JobId id = 0;
  std::string name;
  std::vector<std::string> state;  // {"RUNNING"}, {"COMPLETED"}, {"CANCELLED", "COMPLETING"}, …
  std::string nodes;               // hostlist expression of the allocated nodes
  std::string partition;
  std::string user;
  std::string reason;  // state_reason ("None", "Resources", …)
  std::optional<absl::Time> submit_time;
  std::optional<absl::Time> start_time;
  std::optional<absl::Time> end_time;
  std::optional<int64_t> time_limit_minutes;  // nullopt = unset or infinite
  std::string comment;
  JobExit exit_code;

  std::string PrimaryState() const { return PrimaryStateOf(state); }
  bool Pending() const { return PrimaryState() == kPendingState; }
  bool HasState(absl::string_view s) const;
  // Ended: a final state and no COMPLETING flag left.
  bool Finished() const;

  bool operator==(const Job& other) const = default;
};

struct JobList {
  std::vector<Job> jobs;
  absl::Time last_update = absl::InfinitePast();
};

// One entry of GET jobs/state/: Slurm's text for the job ("123", an array's task "123_4" or
// its pending tasks "123_[5-9]" or "123_5" each, a het job's component "123+1"), the job
// record it belongs to (the number before '_' or '+', what GET job/{id} takes) and its
// state flags. A far smaller reply than GET jobs/: it says which jobs to read again.
struct JobStateEntry {
  std::string text;
  JobId id = 0;
  std::vector<std::string> state;

  std::string PrimaryState() const { return PrimaryStateOf(state); }
  bool Pending() const { return PrimaryState() == kPendingState; }

  bool operator==(const JobStateEntry& other) const = default;
};

// How a job shares its nodes (Slurm's job_desc "shared"): kNone shares with no other job
// (sbatch --exclusive), kUser only with the same user's jobs, kOk with any (--oversubscribe).
enum class JobSharing { kUnset, kNone, kUser, kOk };

// A batch job. Every field but script is optional; environment defaults to
// PATH=/bin:/usr/bin and cwd to /tmp (slurmrestd requires both).
struct JobSubmission {
  std::string script;  // "#!/bin/sh\n…"
  std::string name;
  std::string partition;
  std::string nodes;  // "1", "2-4"
  std::optional<int64_t> tasks;
  std::optional<int64_t> cpus_per_task;
  std::optional<int64_t> memory_per_node_mb;
  std::string tres_per_node;  // "gres/gpu:h100:4"
  std::optional<int64_t> time_limit_minutes;
  std::string account;
  std::string qos;
  std::string constraints;
  std::vector<std::string> required_nodes;
  std::string comment;
  std::vector<std::string> environment;  // "KEY=value"
  std::string cwd;
  std::string standard_output;  // path pattern, "" = Slurm's default
  std::string reservation;
  JobSharing sharing = JobSharing::kUnset;
  // An external job (flag EXTERNAL_JOB, data_parser v0.0.43+): Slurm allocates the nodes
  // and launches nothing there; `script` must be empty.
  bool external = false;
};

struct SubmitResult {
  JobId job_id = 0;
  bool external = false;  // submitted as an external job
  std::string step_id;
  std::vector<std::string> warnings;
};

// What UpdateJob changes; unset fields are left alone.
struct JobUpdate {
  std::optional<int64_t> time_limit_minutes;
  std::optional<std::string> comment;
};

struct Partition {
  std::string name;
  std::string nodes;  // configured node list, "n-[01-03]"
  int64_t total_nodes = 0;
  int64_t total_cpus = 0;
  std::vector<std::string> state;  // {"UP"}
  std::optional<bool> is_default;  // nullopt when the server does not say (24.11 has no flags)
  std::optional<int64_t> max_time_minutes;  // nullopt = unlimited / unset
};

struct Reservation {
  std::string name;
  std::string node_list;
  int64_t node_count = 0;
  std::optional<absl::Time> start_time;
  std::optional<absl::Time> end_time;
  std::vector<std::string> flags;
  std::string users;
  std::string partition;
};

struct PingResult {
  std::string hostname;
  bool responding = false;
  bool primary = false;
  int64_t latency_us = 0;
};

struct DiagInfo {
  std::optional<absl::Time> req_time;
  int64_t server_thread_count = 0;
  int64_t agent_queue_size = 0;
  int64_t jobs_submitted = 0;
  int64_t jobs_started = 0;
  int64_t jobs_completed = 0;
  int64_t jobs_canceled = 0;
  int64_t jobs_failed = 0;
  int64_t jobs_pending = 0;
  int64_t jobs_running = 0;
  int64_t schedule_cycle_last_us = 0;
  int64_t schedule_cycle_max_us = 0;
  int64_t schedule_cycle_mean_us = 0;
  int64_t schedule_cycles_per_minute = 0;
  int64_t schedule_queue_length = 0;
  bool backfill_active = false;
  int64_t backfill_cycle_last_us = 0;
  int64_t backfill_cycle_mean_us = 0;
  int64_t backfill_queue_length = 0;
  int64_t backfilled_jobs = 0;  // since the last reset (midnight or sdiag --reset)
  int64_t dbd_agent_queue_size = 0;
};

}  // namespace tidepool::slurm::rest
