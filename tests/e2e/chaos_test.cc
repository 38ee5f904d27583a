// Chaos on the whole system (system.h): while jobs run and Nodes are cordoned and a
// NodeSet scaled, 100 faults, each one of: a service killed (SIGKILL, its Lease left to
// expire) or restarted (SIGTERM) and started again, slurmrestd restarted, the API server
// killed and restarted. Afterwards, once the disturbances are undone: one pod per Node,
// every node back in service but the one a person drained, that person's drain reason
// unchanged, no k8s: drain left without a cause, and every job completed (none failed,
// cancelled or requeued because of Tidepool). The seed is Catch2's (--rng-seed), printed.
// About 5 minutes, so only on the Slurm suite TIDEPOOL_E2E_CHAOS_SUITE names (CMake: sid).
#include <catch2/catch_get_random_seed.hpp>
#include <catch2/catch_test_macros.hpp>
#include <cstdlib>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "support/testenv.h"
#include "system.h"

namespace tidepool::testing {
namespace {

constexpr int kFaults = 100;
constexpr int kMaxJobs = 24;
constexpr char kPersonNode[] = "gpu-b-02";
constexpr char kPersonReason[] = "chaos: a person's maintenance";
const std::vector<std::string> kNodeNames = {"sim-01", "sim-02", "sim-03", "sim-04"};
const std::vector<std::string> kServices = {"config-renderer", "slurm-syncer", "nodeset-controller",
                                            "cluster-controller", "pod-scheduler"};
// The states a job ends in without anyone's fault; anything else at the end is a loss.
const std::set<std::string> kActiveJobStates = {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING"};

// What happened, for the report.
struct Tally {
  std::map<std::string, int> faults;
  int cordons = 0;
  int uncordons = 0;
  int scales = 0;
  int duplicate_pod_sightings = 0;
  std::string duplicates;
};

class Chaos {
 public:
  Chaos(System& system, uint32_t seed) : s_(system), random_(seed) {}

  // One fault of the kinds above, chosen at random.
  void Fault() {
    const size_t kind = Pick(kServices.size() + 2);
    if (kind < kServices.size()) {
      const std::string& service = kServices[kind];
      if (Pick(2) == 0) {
        s_.Restart(service);
        ++tally_.faults[service + " SIGKILL"];
      } else {
        s_.RestartGracefully(service);
        ++tally_.faults[service + " SIGTERM"];
      }
    } else if (kind == kServices.size()) {
      Script("/tools/testenv/slurm/restart-rest", {});
      ++tally_.faults["slurmrestd restart"];
    } else {
      Script("/tools/testenv/k8s/restart-apiserver", {"--kill", "--down-for", "1"});
      ++tally_.faults["kube-apiserver kill"];
    }
  }

  // One change a user or operator makes meanwhile (lost if the API server is down then).
  void Disturb() {
    switch (Pick(4)) {
      case 0: {
        const std::string& node = kNodeNames[Pick(kNodeNames.size())];
        s_.TryKubectl(
            {"annotate", "--overwrite", "node", node, "tidepool.dev/cordon-reason=chaos"});
        if (s_.TryKubectl({"cordon", node})) ++tally_.cordons;
        break;
      }
      case 1:
        if (s_.TryKubectl({"uncordon", kNodeNames[Pick(kNodeNames.size())]})) ++tally_.uncordons;
        break;
      case 2:
        if (s_.TryKubectl({"-n", "hpc", "scale", "nodeset", "h100-a",
                           absl::StrCat("--replicas=", 1 + Pick(2))})) {
          ++tally_.scales;
        }
        break;
      default:
        Submit();
    }
  }

  void Submit() {
    if (jobs_.size() >= kMaxJobs) return;
    absl::StatusOr<CommandResult> r =
        SlurmExec(s_.slurm(), {"sbatch", "--parsable", "-p", "gpu", "-N1", "-o", "/dev/null",
                               "--wrap", absl::StrCat("sleep ", 5 + Pick(20))});
    if (!r.ok() || r->exit_code != 0) return;  // slurmctld busy in a reconfigure: no job
    const std::string id(absl::StripAsciiWhitespace(r->output));
    if (!id.empty()) jobs_[id] = "SUBMITTED";
  }

  // Every job's latest state as slurmctld lists it (finished jobs stay listed for
  // MinJobAge, 300 s; this runs every few seconds).
  void FollowJobs() {
    absl::StatusOr<CommandResult> r =
        SlurmExec(s_.slurm(), {"squeue", "-h", "-t", "all", "-o", "%i %T"});
    if (!r.ok() || r->exit_code != 0) return;
    for (absl::string_view line : absl::StrSplit(r->output, '\n', absl::SkipEmpty())) {
      std::vector<std::string> fields = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (fields.size() == 2 && jobs_.count(fields[0]) != 0) jobs_[fields[0]] = fields[1];
    }
  }

  // Two slurmd pods on one Node at any moment is a defect (each Node runs one slurmd).
  void CheckOnePodPerNode() {
    const std::string placed =
        s_.Json({"-n", "hpc", "get", "pods"},
                R"({range .items[*]}{.spec.nodeName}={.metadata.name} {end})");
    std::map<std::string, std::vector<std::string>> by_node;
    for (absl::string_view entry : absl::StrSplit(placed, ' ', absl::SkipEmpty())) {
      std::pair<std::string, std::string> kv = absl::StrSplit(entry, absl::MaxSplits('=', 1));
      if (!kv.first.empty()) by_node[kv.first].push_back(kv.second);
    }
    for (const auto& [node, pods] : by_node) {
      if (pods.size() > 1) {
        ++tally_.duplicate_pod_sightings;
        tally_.duplicates += absl::StrCat(node, ": ", absl::StrJoin(pods, ","), "; ");
      }
    }
  }

  bool JobsEnded() {
    FollowJobs();
    for (const auto& [id, state] : jobs_) {
      if (state == "SUBMITTED" || kActiveJobStates.count(state) != 0) return false;
    }
    return true;
  }

  const std::map<std::string, std::string>& jobs() const { return jobs_; }
  const Tally& tally() const { return tally_; }

  absl::Duration Pause() { return absl::Milliseconds(500 + Pick(1500)); }

 private:
  size_t Pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random_); }

  void Script(const std::string& path, std::vector<std::string> args) {
    args.insert(args.begin(), SourceRoot() + path);
    absl::StatusOr<CommandResult> r = RunCommand(args, absl::Seconds(120));
    REQUIRE(r.ok());
    INFO(absl::StrJoin(args, " ") << ": " << r->output);
    REQUIRE(r->exit_code == 0);
  }

  System& s_;
  std::mt19937 random_;
  std::map<std::string, std::string> jobs_;  // id → last state seen
  Tally tally_;
};

std::string Report(const Tally& tally, const std::map<std::string, std::string>& jobs) {
  std::vector<std::string> faults;
  for (const auto& [what, n] : tally.faults) faults.push_back(absl::StrCat(what, " ", n));
  std::map<std::string, int> ends;
  for (const auto& [id, state] : jobs) ++ends[state];
  std::vector<std::string> states;
  for (const auto& [state, n] : ends) states.push_back(absl::StrCat(state, " ", n));
  return absl::StrCat("faults: ", absl::StrJoin(faults, ", "), "; cordons ", tally.cordons,
                      ", uncordons ", tally.uncordons, ", scales ", tally.scales,
                      "; jobs: ", absl::StrJoin(states, ", "));
}

TEST_CASE("100 faults while jobs run and Nodes are cordoned and scaled lose no job") {
  const char* chaos_suite = std::getenv("TIDEPOOL_E2E_CHAOS_SUITE");
  System& s = ReadySystem();
  if (chaos_suite != nullptr && s.slurm().suite != chaos_suite) {
    SKIP("chaos runs on the " << chaos_suite << " suite only, this is " << s.slurm().suite);
  }
  const uint32_t seed = Catch::getSeed();
  WARN("chaos seed " << seed << " (rerun with --rng-seed " << seed << ")");
  const std::string pods_before = s.Json({"-n", "hpc", "get", "pods"}, "{.items[*].metadata.name}");
  s.Slurm({"scontrol", "update", absl::StrCat("nodename=", kPersonNode), "state=drain",
           absl::StrCat("reason=", kPersonReason)});

  Chaos chaos(s, seed);
  const absl::Time started = absl::Now();
  for (int i = 0; i < kFaults; ++i) {
    chaos.Disturb();
    chaos.Fault();
    absl::SleepFor(chaos.Pause());
    chaos.FollowJobs();
    chaos.CheckOnePodPerNode();
  }
  WARN(kFaults << " faults in " << absl::FormatDuration(absl::Now() - started) << ": "
               << Report(chaos.tally(), chaos.jobs()));

  // Undo the disturbances (the API server answers again: restart-apiserver waited for it).
  for (const std::string& node : kNodeNames) s.Kubectl({"uncordon", node});
  s.Kubectl({"-n", "hpc", "scale", "nodeset", "h100-a", "--replicas=2"});
  // A pod recreated after a failover has the old name but is not Ready yet, and its node is
  // idle until the syncer drains it for that: converged means every pod is Ready and not being
  // deleted, and the state held for a while.
  // Each pod as "name=<deletionTimestamp><Ready status> ", read in one call: converged is
  // the pods of before, each "name=True".
  std::string pods_ready_before;
  for (absl::string_view name : absl::StrSplit(pods_before, ' ', absl::SkipEmpty())) {
    absl::StrAppend(&pods_ready_before, name, "=True ");
  }
  auto converged_now = [&] {
    const std::string nodes = s.SlurmNodes();
    int idle = 0;
    for (absl::string_view line : absl::StrSplit(nodes, '\n', absl::SkipEmpty())) {
      if (absl::StrContains(line, " idle ")) ++idle;
    }
    return idle == kNodes - 1 && s.SlurmReason(kPersonNode) == kPersonReason &&
           s.Json({"-n", "hpc", "get", "pods"},
                  "{range .items[*]}{.metadata.name}={.metadata.deletionTimestamp}"
                  "{.status.conditions[?(@.type==\"Ready\")].status} {end}") == pods_ready_before;
  };
  std::optional<absl::Time> converged_since;
  auto converged = [&] {
    if (!converged_now()) {
      converged_since.reset();
      return false;
    }
    if (!converged_since) converged_since = absl::Now();
    return absl::Now() - *converged_since >= absl::Seconds(5);
  };
  const bool settled = Eventually(converged, absl::Seconds(300)).has_value();
  INFO(s.SlurmNodes());
  INFO("nodeset-controller:\n" << s.LogTail("nodeset-controller"));
  INFO("slurm-syncer:\n" << s.LogTail("slurm-syncer"));
  CHECK(settled);
  CHECK(s.SlurmReason(kPersonNode) == kPersonReason);
  CHECK(s.Json({"-n", "hpc", "get", "pods"}, "{.items[*].metadata.name}") == pods_before);
  chaos.CheckOnePodPerNode();
  INFO(chaos.tally().duplicates);
  CHECK(chaos.tally().duplicate_pod_sightings == 0);
  // No k8s: drain without a cause: every node but the person's is idle with no reason.
  for (absl::string_view line : absl::StrSplit(s.SlurmNodes(), '\n', absl::SkipEmpty())) {
    INFO(line);
    if (absl::StartsWith(line, kPersonNode)) continue;
    CHECK(absl::StrContains(line, " idle "));
    CHECK_FALSE(absl::StrContains(line, "k8s:"));
  }
  CHECK(Eventually([&] { return chaos.JobsEnded(); }, absl::Seconds(180)).has_value());
  CHECK_FALSE(chaos.jobs().empty());
  for (const auto& [id, state] : chaos.jobs()) {
    INFO("job " << id);
    CHECK(state == "COMPLETED");
  }
  WARN("after the faults: " << Report(chaos.tally(), chaos.jobs()));

  s.Slurm({"scontrol", "update", absl::StrCat("nodename=", kPersonNode), "state=resume"});
  CHECK(Eventually([&] { return s.AllReady(); }, absl::Seconds(120)).has_value());
}

}  // namespace
}  // namespace tidepool::testing
