#include "placement_policy.h"

#include <catch2/catch_test_macros.hpp>

#include "absl/strings/match.h"

namespace tidepool::podsched {
namespace {

using tidepool::v1::JobSpec;
using tidepool::v1::PlacementRule;

PlacementRule Rule(std::vector<std::string> namespaces, std::vector<std::string> accounts,
                   std::vector<std::string> partitions = {}) {
  PlacementRule rule;
  for (std::string& ns : namespaces) rule.add_namespaces(std::move(ns));
  for (std::string& account : accounts) rule.add_accounts(std::move(account));
  for (std::string& partition : partitions) rule.add_partitions(std::move(partition));
  return rule;
}

JobSpec Asking(const std::string& account, const std::string& partition = "") {
  JobSpec job;
  job.set_account(account);
  job.set_partition(partition);
  return job;
}

TEST_CASE("without a policy a pod names no account, QoS or reservation, any partition") {
  const PlacementPolicy none("research", {});
  CHECK(none.Allows(Asking(""), "ml").ok());
  CHECK(none.Allows(Asking("", "gpu"), "ml").ok());
  const absl::Status account = none.Allows(Asking("ml"), "ml");
  CHECK(absl::IsInvalidArgument(account));
  CHECK(account.message() ==
        "annotation tidepool.dev/account: \"ml\" is not allowed in namespace ml: SlurmCluster "
        "research lists no such account for it in spec.podScheduler.placementPolicy[].accounts");
  JobSpec qos;
  qos.set_qos("high");
  CHECK(absl::StrContains(none.Allows(qos, "ml").message(), "tidepool.dev/qos: \"high\""));
  JobSpec reservation;
  reservation.set_reservation("maint");
  CHECK(absl::StrContains(none.Allows(reservation, "ml").message(), "reservations"));
}

TEST_CASE("a rule allows what it lists to the namespaces it names, or every one with *") {
  const PlacementPolicy policy("research",
                               {Rule({"ml", "vision"}, {"ml"}), Rule({"*"}, {"shared"})});
  CHECK(policy.Allows(Asking("ml"), "ml").ok());
  CHECK(policy.Allows(Asking("ml"), "vision").ok());
  CHECK(policy.Allows(Asking("shared"), "anyone").ok());
  CHECK_FALSE(policy.Allows(Asking("ml"), "finance").ok());
  CHECK_FALSE(policy.Allows(Asking("finance"), "ml").ok());
  CHECK_FALSE(policy.Allows(Asking("ML"), "ml").ok());  // Slurm's names, compared exactly
}

TEST_CASE("partitions are free until a rule for the namespace lists some") {
  const PlacementPolicy policy("research", {Rule({"ml"}, {}, {"gpu"}), Rule({"*"}, {"x"})});
  CHECK(policy.Allows(Asking("", "gpu"), "ml").ok());
  const absl::Status urgent = policy.Allows(Asking("", "urgent"), "ml");
  CHECK(absl::StrContains(urgent.message(), "tidepool.dev/partition: \"urgent\""));
  CHECK(absl::StrContains(urgent.message(), "placementPolicy[].partitions"));
  CHECK(policy.Allows(Asking("", "urgent"), "vision").ok());  // no rule for it lists any
  const absl::Status unnamed = policy.Allows(Asking(""), "ml");
  CHECK(absl::IsInvalidArgument(unnamed));
  CHECK(absl::StrContains(unnamed.message(), "tidepool.dev/partition is missing"));
  CHECK(policy.Allows(Asking(""), "vision").ok());
}

}  // namespace
}  // namespace tidepool::podsched
