#include "teardown_plan.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::cluster {
namespace {

// A whole cluster as the cluster-controller and the other steps make it.
TeardownObservation Running() {
  return {.workloads = {{"Deployment", "research-login", "login", false},
                        {"Deployment", "research-restapi", "slurmrestd", false},
                        {"StatefulSet", "research-controller", "slurmctld", false},
                        {"StatefulSet", "research-accounting", "slurmdbd", false},
                        {"StatefulSet", "research-accounting-db", "accounting-database", false}},
          .pods = {{"research-login-a", "login"},
                   {"research-restapi-b", "slurmrestd"},
                   {"research-controller-0", "slurmctld"},
                   {"research-accounting-0", "slurmdbd"},
                   {"research-accounting-db-0", "accounting-database"},
                   {"cpu-01", "slurmd"}},
          .claims = {"research-controller-state"}};
}

// What the API server shows once a stage's workloads and pods are gone.
void Gone(TeardownObservation& observed, const std::string& component) {
  std::erase_if(observed.workloads,
                [&](const TeardownWorkload& w) { return w.component == component; });
  std::erase_if(observed.pods, [&](const TeardownPod& p) { return p.component == component; });
}

TEST_CASE("the stages are login, slurmrestd, slurmctld, slurmdbd, the accounting database") {
  const std::vector<std::string> stages(TeardownStages().begin(), TeardownStages().end());
  CHECK(stages == std::vector<std::string>{"login", "slurmrestd", "slurmctld", "slurmdbd",
                                           "accounting-database"});
}

TEST_CASE("each stage is deleted only after every pod of the stages before it is gone") {
  TeardownObservation observed = Running();
  for (const char* stage : TeardownStages()) {
    INFO(stage);
    TeardownDecision decision = NextTeardownAction(observed);
    REQUIRE(decision.action == TeardownAction::kDeleteWorkloads);
    CHECK(decision.stage == stage);
    REQUIRE(decision.workloads.size() == 1);
    CHECK(decision.workloads[0].component == stage);
    // Deleted (foreground): the workload shows as deleting while its pods stop.
    for (TeardownWorkload& w : observed.workloads) {
      if (w.component == stage) w.deleting = true;
    }
    decision = NextTeardownAction(observed);
    CHECK(decision.action == TeardownAction::kWaitForPods);
    CHECK(decision.stage == stage);
    CHECK(decision.workloads.empty());
    // The workload gone but a pod still terminating: still waiting.
    std::erase_if(observed.workloads,
                  [&](const TeardownWorkload& w) { return w.component == stage; });
    decision = NextTeardownAction(observed);
    CHECK(decision.action == TeardownAction::kWaitForPods);
    CHECK(decision.stage == stage);
    CHECK(absl::StrContains(decision.waiting_for, "pod research-"));
    Gone(observed, stage);
  }
  // slurmd pods belong to NodeSets, not to the teardown; the claim is kept.
  CHECK(NextTeardownAction(observed).action == TeardownAction::kRemoveFinalizer);
}

TEST_CASE("stages the cluster does not have are skipped") {
  // Today's clusters: no login, slurmdbd or database workloads at all.
  TeardownObservation observed = Running();
  Gone(observed, "login");
  Gone(observed, "slurmdbd");
  Gone(observed, "accounting-database");
  TeardownDecision decision = NextTeardownAction(observed);
  CHECK(decision.stage == "slurmrestd");
  Gone(observed, "slurmrestd");
  CHECK(NextTeardownAction(observed).stage == "slurmctld");
  Gone(observed, "slurmctld");
  CHECK(NextTeardownAction(observed).action == TeardownAction::kRemoveFinalizer);
}

TEST_CASE("a later stage's workload is never touched while an earlier stage runs") {
  TeardownObservation observed = Running();
  const TeardownDecision decision = NextTeardownAction(observed);
  REQUIRE(decision.stage == "login");
  for (const TeardownWorkload& w : decision.workloads) CHECK(w.component == "login");
}

TEST_CASE("a restarted controller continues from what it sees, mid-stage or between stages") {
  // Nothing is remembered between passes: a new controller's first pass on a
  // half-torn-down cluster decides exactly as the old one's next pass would have.
  TeardownObservation observed = Running();
  Gone(observed, "login");
  for (TeardownWorkload& w : observed.workloads) {
    if (w.component == "slurmrestd") w.deleting = true;
  }
  TeardownDecision decision = NextTeardownAction(observed);
  CHECK(decision.action == TeardownAction::kWaitForPods);
  CHECK(decision.stage == "slurmrestd");
  CHECK(decision.workloads.empty());  // not deleted again
  // Killed after slurmrestd had gone, before slurmctld was deleted.
  Gone(observed, "slurmrestd");
  decision = NextTeardownAction(observed);
  CHECK(decision.action == TeardownAction::kDeleteWorkloads);
  CHECK(decision.stage == "slurmctld");
}

TEST_CASE("claims go only when the user asked, after every daemon") {
  TeardownObservation observed = Running();
  for (const char* stage : TeardownStages()) Gone(observed, stage);
  CHECK(NextTeardownAction(observed).action == TeardownAction::kRemoveFinalizer);
  observed.delete_claims = true;
  TeardownDecision decision = NextTeardownAction(observed);
  CHECK(decision.action == TeardownAction::kDeleteClaims);
  CHECK(decision.claims == std::vector<std::string>{"research-controller-state"});
  CHECK(absl::StrContains(decision.waiting_for, "research-controller-state"));
  observed.claims.clear();  // deleted (the observation leaves out deleting claims)
  CHECK(NextTeardownAction(observed).action == TeardownAction::kRemoveFinalizer);

  SECTION("not before the daemons are gone") {
    TeardownObservation running = Running();
    running.delete_claims = true;
    CHECK(NextTeardownAction(running).action == TeardownAction::kDeleteWorkloads);
  }
}

TEST_CASE("the waiting message names a few of what is in the way, then how many more") {
  TeardownObservation observed;
  for (int i = 0; i < 5; ++i) {
    observed.pods.push_back({"research-login-" + std::to_string(i), "login"});
  }
  const TeardownDecision decision = NextTeardownAction(observed);
  CHECK(decision.waiting_for ==
        "login to stop: pod research-login-0, pod research-login-1, pod research-login-2 and 2 "
        "more");
}

TEST_CASE("the delete-claims annotation is true in any case, nothing else") {
  CHECK(DeleteClaimsRequested("true"));
  CHECK(DeleteClaimsRequested("True"));
  CHECK_FALSE(DeleteClaimsRequested(""));
  CHECK_FALSE(DeleteClaimsRequested("yes"));
  CHECK_FALSE(DeleteClaimsRequested("false"));
}

}  // namespace
}  // namespace tidepool::cluster
