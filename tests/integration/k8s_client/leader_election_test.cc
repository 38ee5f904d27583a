// Leader election between two processes (lease_contender) on one Lease of the real API
// server: a killed leader is replaced within 15 s (ARCHITECTURE.md §7), a stopped one
// hands over at once by releasing the lease.
#include "k8s/leader_election.h"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "k8s/client.h"
#include "k8s/config.h"
#include "k8s/resource.h"
#include "support/child_process.h"
#include "support/testenv.h"

namespace tidepool::k8s {
namespace {

using testing::ChildProcess;

struct Contest {
  testing::KubernetesEnv env;
  std::unique_ptr<Client> client;
  std::string lease;

  Contest() {
    absl::StatusOr<testing::KubernetesEnv> found = testing::Kubernetes();
    INFO(found.status().ToString());
    REQUIRE(found.ok());
    env = *found;
    absl::StatusOr<ClientConfig> config = LoadKubeconfig(env.kubeconfig);
    REQUIRE(config.ok());
    client = std::make_unique<Client>(*config);
    lease = absl::StrCat("tp-election-", getpid(), "-", absl::ToUnixMillis(absl::Now()) % 1000000);
  }
  ~Contest() { (void)client->Delete(Leases(), "default", lease); }

  ChildProcess Start(const std::string& identity, const std::string& lease_duration = "4s",
                     const std::string& renew_deadline = "3s") {
    absl::StatusOr<ChildProcess> child = ChildProcess::Spawn(
        TIDEPOOL_LEASE_CONTENDER,
        {"--kubeconfig=" + env.kubeconfig, "--namespace=default", "--name=" + lease,
         "--identity=" + identity, "--lease=" + lease_duration, "--renew=" + renew_deadline,
         "--retry=1s"});
    INFO(child.status().ToString());
    REQUIRE(child.ok());
    return *std::move(child);
  }

  LeaseRecord Record() {
    absl::StatusOr<std::string> json = client->Get(Leases(), "default", lease);
    INFO(json.status().ToString());
    REQUIRE(json.ok());
    return ParseLease(*json).value().record;
  }
};

// Waits until the child has printed `line`; false after `timeout`.
bool WaitForLine(ChildProcess& child, const std::string& line, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    if (absl::StrContains(child.Output(), line + "\n")) return true;
    absl::SleepFor(absl::Milliseconds(20));
  }
  return false;
}

TEST_CASE("a killed leader is replaced within 15 s") {
  Contest contest;
  const std::string a = absl::StrCat("contender-a-", getpid());
  const std::string b = absl::StrCat("contender-b-", getpid());
  ChildProcess first = contest.Start(a);
  INFO(first.Output());
  REQUIRE(WaitForLine(first, "leading", absl::Seconds(20)));
  ChildProcess second = contest.Start(b);
  INFO(second.Output());
  REQUIRE(WaitForLine(second, "new-leader " + a, absl::Seconds(20)));
  const LeaseRecord held = contest.Record();
  CHECK(held.holder_identity == a);
  CHECK(held.lease_duration_seconds == 4);
  CHECK(held.lease_transitions == 0);

  REQUIRE(first.Signal(SIGKILL).ok());
  const absl::Time killed = absl::Now();
  CHECK_FALSE(absl::StrContains(second.Output(), "leading\n"));  // not while a led
  REQUIRE(WaitForLine(second, "leading", absl::Seconds(20)));
  const absl::Duration takeover = absl::Now() - killed;
  std::printf("leader election: killed leader replaced after %s (lease 4s, retry 1s)\n",
              absl::FormatDuration(takeover).c_str());
  CHECK(takeover < absl::Seconds(15));
  // It waited for the lease to expire: 4 s from the last renewal it saw, which was at
  // most one jittered retry period (2.2 s) before the kill.
  CHECK(takeover > absl::Seconds(1));

  const LeaseRecord taken = contest.Record();
  CHECK(taken.holder_identity == b);
  CHECK(taken.lease_transitions == 1);
  REQUIRE(taken.acquire_time.has_value());
  CHECK(*taken.acquire_time > *held.acquire_time);
  CHECK(WaitForLine(second, "new-leader " + b, absl::Seconds(1)));
}

TEST_CASE("a leader that stops releases the lease and the other takes over at once") {
  Contest contest;
  const std::string a = absl::StrCat("graceful-a-", getpid());
  const std::string b = absl::StrCat("graceful-b-", getpid());
  // A long lease: waiting it out would take over 12 s, so a quick takeover shows release.
  ChildProcess first = contest.Start(a, "15s", "10s");
  INFO(first.Output());
  REQUIRE(WaitForLine(first, "leading", absl::Seconds(20)));
  ChildProcess second = contest.Start(b, "15s", "10s");
  INFO(second.Output());
  REQUIRE(WaitForLine(second, "new-leader " + a, absl::Seconds(20)));

  REQUIRE(first.Signal(SIGTERM).ok());
  const absl::Time stopped = absl::Now();
  absl::StatusOr<int> exit_code = first.WaitForExit(absl::Seconds(10));
  REQUIRE(exit_code.ok());
  CHECK(*exit_code == 0);
  CHECK(absl::StrContains(first.Output(), "leading\nstopped\nexit\n"));
  REQUIRE(WaitForLine(second, "leading", absl::Seconds(20)));
  const absl::Duration takeover = absl::Now() - stopped;
  std::printf("leader election: released lease taken over after %s (lease 15s, retry 1s)\n",
              absl::FormatDuration(takeover).c_str());
  // Without the release it would wait out the 15 s lease (at least 15 - 2.2 s after the
  // stop); with it, the next jittered retry (at most 2.2 s) takes it.
  CHECK(takeover < absl::Seconds(5));
  const LeaseRecord taken = contest.Record();
  CHECK(taken.holder_identity == b);
  CHECK(taken.lease_duration_seconds == 15);
  CHECK(taken.lease_transitions == 1);

  // The new leader stops too: the lease is left released (no holder, 1 s).
  REQUIRE(second.Signal(SIGTERM).ok());
  REQUIRE(second.WaitForExit(absl::Seconds(10)).ok());
  const LeaseRecord released = contest.Record();
  CHECK(released.holder_identity.empty());
  CHECK(released.lease_duration_seconds == 1);
  CHECK(released.lease_transitions == 1);
}

}  // namespace
}  // namespace tidepool::k8s
