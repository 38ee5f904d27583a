// The Slurm REST client against a running slurmrestd (data_parser v0.0.42 on Slurm 24.11,
// v0.0.45 on 26.05): what slurm-syncer will do, end to end.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "slurm/rest/client.h"
#include "support/testenv.h"

namespace tidepool::slurm::rest {
namespace {

using ::tidepool::testing::CommandResult;
using ::tidepool::testing::RunCommand;
using ::tidepool::testing::SlurmEnv;
using ::tidepool::testing::SlurmExec;

SlurmEnv RequireSlurm() {
  absl::StatusOr<SlurmEnv> env = ::tidepool::testing::Slurm();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  return *std::move(env);
}

absl::StatusOr<std::unique_ptr<Client>> ConnectWithKey(const SlurmEnv& env,
                                                       const std::string& key_file,
                                                       std::string version = "") {
  absl::StatusOr<std::unique_ptr<Authenticator>> auth =
      NewJwtKeyAuthenticator(JwtKeyOptions{.key_file = key_file});
  if (!auth.ok()) return auth.status();
  ClientOptions options;
  options.base_url = env.rest_url;
  options.auth = std::shared_ptr<Authenticator>(*std::move(auth));
  options.timeout = absl::Seconds(20);
  options.version = std::move(version);
  return Client::Connect(std::move(options));
}

std::unique_ptr<Client> RequireClient(const SlurmEnv& env) {
  absl::StatusOr<std::unique_ptr<Client>> client = ConnectWithKey(env, env.jwt_key_file);
  INFO(client.status().ToString());
  REQUIRE(client.ok());
  return *std::move(client);
}

void RequireExec(const SlurmEnv& env, const std::vector<std::string>& args) {
  absl::StatusOr<CommandResult> r = SlurmExec(env, args);
  REQUIRE(r.ok());
  INFO(absl::StrJoin(args, " ") << ": " << r->output);
  REQUIRE(r->exit_code == 0);
}

Node RequireNode(Client& client, const std::string& name) {
  absl::StatusOr<Node> node = client.GetNode(name);
  INFO(node.status().ToString());
  REQUIRE(node.ok());
  return *std::move(node);
}

// Polls the job until `done` says so (or 90 s pass); returns the last view.
template <typename Done>
Job WaitForJob(Client& client, JobId id, Done done) {
  Job job;
  const absl::Time deadline = absl::Now() + absl::Seconds(90);
  while (absl::Now() < deadline) {
    absl::StatusOr<Job> j = client.GetJob(id);
    INFO(j.status().ToString());
    REQUIRE(j.ok());
    job = *std::move(j);
    if (done(job)) break;
    absl::SleepFor(absl::Milliseconds(250));
  }
  return job;
}

TEST_CASE("the client picks the newest version served and answers ping and diag") {
  const SlurmEnv env = RequireSlurm();
  std::string told;
  absl::StatusOr<std::unique_ptr<Authenticator>> auth =
      NewJwtKeyAuthenticator(JwtKeyOptions{.key_file = env.jwt_key_file});
  REQUIRE(auth.ok());
  ClientOptions options;
  options.base_url = env.rest_url;
  options.auth = std::shared_ptr<Authenticator>(*std::move(auth));
  options.on_version = [&](absl::string_view v, const std::vector<std::string>&) {
    told = std::string(v);
  };
  absl::StatusOr<std::unique_ptr<Client>> client = Client::Connect(options);
  INFO(client.status().ToString());
  REQUIRE(client.ok());
  const absl::StatusOr<std::string> expected = env.RestVersion("v0.0.42", "v0.0.45");
  REQUIRE(expected.ok());
  INFO("Slurm " << env.version << " (" << env.suite << "): " << (*client)->Describe());
  CHECK((*client)->version() == *expected);
  CHECK(told == *expected);
  CHECK((*client)->served_versions() == env.rest_versions);

  absl::StatusOr<std::vector<PingResult>> ping = (*client)->Ping();
  INFO(ping.status().ToString());
  REQUIRE(ping.ok());
  REQUIRE_FALSE(ping->empty());
  CHECK(ping->front().responding);

  absl::StatusOr<DiagInfo> diag = (*client)->Diag();
  INFO(diag.status().ToString());
  REQUIRE(diag.ok());
  CHECK(diag->server_thread_count >= 1);
  REQUIRE(diag->req_time.has_value());
  CHECK(absl::AbsDuration(*diag->req_time - absl::Now()) < absl::Minutes(5));
}

TEST_CASE("nodes, partitions and reservations are listed") {
  const SlurmEnv env = RequireSlurm();
  std::unique_ptr<Client> client = RequireClient(env);
  absl::StatusOr<NodeList> nodes = client->GetNodes();
  INFO(nodes.status().ToString());
  REQUIRE(nodes.ok());
  std::vector<std::string> names;
  for (const Node& n : nodes->nodes) {
    names.push_back(n.name);
    CHECK(n.cpus > 0);
    CHECK(n.real_memory_mb > 0);
    CHECK(n.version == env.version);
    CHECK_FALSE(n.address.empty());
    CHECK_FALSE(n.partitions.empty());
  }
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected = env.node_names;
  std::sort(expected.begin(), expected.end());
  CHECK(names == expected);
  CHECK(nodes->last_update > absl::Now() - absl::Hours(1));

  const Node one = RequireNode(*client, env.node_names.at(0));
  CHECK(one.name == env.node_names.at(0));
  CHECK(one.hostname == env.node_names.at(0));

  absl::StatusOr<Node> missing = client->GetNode("no-such-node");
  REQUIRE_FALSE(missing.ok());
  INFO(missing.status().ToString());
  CHECK(absl::IsNotFound(missing.status()));
  CHECK(absl::StrContains(missing.status().message(), "/node/no-such-node"));

  absl::StatusOr<std::vector<Partition>> parts = client->GetPartitions();
  INFO(parts.status().ToString());
  REQUIRE(parts.ok());
  REQUIRE_FALSE(parts->empty());
  bool has_default = false, default_known = false;
  for (const Partition& p : *parts) {
    default_known |= p.is_default.has_value();
    has_default |= p.is_default.value_or(false);
    CHECK(p.total_nodes > 0);
    CHECK(p.total_cpus > 0);
    CHECK(p.state == std::vector<std::string>{"UP"});
  }
  // Slurm 24.11 does not report partition flags.
  if (default_known) CHECK(has_default);

  const std::string res_name = absl::StrCat("tp-rest-", getpid());
  RequireExec(env, {"scontrol", "create", "reservation", absl::StrCat("reservationname=", res_name),
                    "starttime=now+2hours", "duration=30",
                    absl::StrCat("nodes=", env.node_names.back()), "users=root", "flags=maint"});
  absl::StatusOr<std::vector<Reservation>> reservations = client->GetReservations();
  SlurmExec(env, {"scontrol", "delete", absl::StrCat("reservationname=", res_name)}).IgnoreError();
  INFO(reservations.status().ToString());
  REQUIRE(reservations.ok());
  auto it = std::find_if(reservations->begin(), reservations->end(),
                         [&](const Reservation& r) { return r.name == res_name; });
  REQUIRE(it != reservations->end());
  CHECK(it->node_list == env.node_names.back());
  CHECK(it->node_count == 1);
  CHECK(std::find(it->flags.begin(), it->flags.end(), "MAINT") != it->flags.end());
  REQUIRE(it->start_time.has_value());
  REQUIRE(it->end_time.has_value());
  CHECK(*it->end_time - *it->start_time == absl::Minutes(30));
}

TEST_CASE("drain, comment, features and undrain a node through UpdateNode") {
  const SlurmEnv env = RequireSlurm();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string name = env.node_names.at(1);
  const Node before = RequireNode(*client, name);

  NodeUpdate drain;
  drain.state = NodeUpdate::State::kDrain;
  drain.reason = "tidepool rest test";
  drain.comment = "drained by slurm_rest_client_test";
  absl::Status s = client->UpdateNode(name, drain);
  INFO(s.ToString());
  REQUIRE(s.ok());
  Node drained = RequireNode(*client, name);
  CHECK(drained.state.Has(NodeState::kDrain));
  CHECK(drained.reason == "tidepool rest test");
  CHECK(drained.reason_set_by_user == "root");
  REQUIRE(drained.reason_changed_at.has_value());
  CHECK(absl::AbsDuration(*drained.reason_changed_at - absl::Now()) < absl::Minutes(5));
  CHECK(drained.comment == "drained by slurm_rest_client_test");

  NodeUpdate features;
  features.features = std::vector<std::string>{"tp_a", "tp_b"};
  s = client->UpdateNode(name, features);
  INFO(s.ToString());
  REQUIRE(s.ok());
  Node featured = RequireNode(*client, name);
  CHECK(featured.features == std::vector<std::string>{"tp_a", "tp_b"});

  NodeUpdate restore;
  restore.state = NodeUpdate::State::kUndrain;
  restore.reason = "done";
  restore.comment = "";
  restore.features = before.features;
  s = client->UpdateNode(name, restore);
  INFO(s.ToString());
  REQUIRE(s.ok());
  const Node after = RequireNode(*client, name);
  CHECK_FALSE(after.state.Has(NodeState::kDrain));
  CHECK(after.state.Has(NodeState::kIdle));
  CHECK(after.features == before.features);
  CHECK(after.comment.empty());

  // A state change for a node that does not exist is an error naming the call.
  absl::Status missing = client->UpdateNode("no-such-node", drain);
  REQUIRE_FALSE(missing.ok());
  INFO(missing.ToString());
  CHECK(absl::StrContains(missing.message(), "POST /slurm/"));
}

TEST_CASE("GetNodesSince returns a node drained with scontrol") {
  const SlurmEnv env = RequireSlurm();
  std::unique_ptr<Client> client = RequireClient(env);
  const std::string name = env.node_names.at(0);
  absl::StatusOr<NodeList> full = client->GetNodes();
  REQUIRE(full.ok());

  RequireExec(env,
              {"scontrol", "update", absl::StrCat("nodename=", name), "state=drain", "reason=x"});
  absl::StatusOr<NodeList> changed = client->GetNodesSince(full->last_update);
  RequireExec(env, {"scontrol", "update", absl::StrCat("nodename=", name), "state=resume"});
  INFO(changed.status().ToString());
  REQUIRE(changed.ok());
  CHECK_FALSE(changed->unchanged);
  CHECK(changed->last_update >= full->last_update);
  auto it = std::find_if(changed->nodes.begin(), changed->nodes.end(),
                         [&](const Node& n) { return n.name == name; });
  REQUIRE(it != changed->nodes.end());
  CHECK(it->state.Has(NodeState::kDrain));
  CHECK(it->reason == "x");

  // Asking about a time after every change: nothing changed (HTTP 304).
  absl::StatusOr<NodeList> again = client->GetNodesSince(absl::Now() + absl::Hours(1));
  INFO(again.status().ToString());
  REQUIRE(again.ok());
  CHECK(again->unchanged);
  CHECK(again->nodes.empty());
}

TEST_CASE("a submitted job runs to COMPLETED and appears in the job list") {
  const SlurmEnv env = RequireSlurm();
  std::unique_ptr<Client> client = RequireClient(env);
  JobSubmission job;
  job.script = "#!/bin/sh\necho tidepool-rest\n";
  job.name = "tp-rest-complete";
  job.nodes = "1";
  job.tasks = 1;
  job.cpus_per_task = 1;
  job.memory_per_node_mb = 64;
  job.time_limit_minutes = 2;
  job.comment = "from the rest test";
  job.environment = {"PATH=/bin:/usr/bin", "TP=1"};
  job.cwd = "/tmp";
  absl::StatusOr<SubmitResult> submitted = client->SubmitJob(job);
  INFO(submitted.status().ToString());
  REQUIRE(submitted.ok());
  CHECK(submitted->job_id > 0);

  absl::StatusOr<JobList> jobs = client->GetJobs();
  INFO(jobs.status().ToString());
  REQUIRE(jobs.ok());
  CHECK(std::any_of(jobs->jobs.begin(), jobs->jobs.end(),
                    [&](const Job& j) { return j.id == submitted->job_id; }));
  absl::StatusOr<std::vector<JobStateEntry>> states = client->GetJobStates();
  INFO(states.status().ToString());
  REQUIRE(states.ok());
  CHECK(std::any_of(states->begin(), states->end(), [&](const JobStateEntry& e) {
    return e.id == submitted->job_id && e.text == absl::StrCat(submitted->job_id) &&
           !e.state.empty();
  }));

  const Job done =
      WaitForJob(*client, submitted->job_id, [](const Job& j) { return j.Finished(); });
  INFO("job " << done.id << " " << absl::StrJoin(done.state, "+") << " on " << done.nodes);
  CHECK(done.state == std::vector<std::string>{"COMPLETED"});
  CHECK(done.name == "tp-rest-complete");
  CHECK(done.user == "root");
  CHECK(done.comment == "from the rest test");
  CHECK(done.time_limit_minutes == 2);
  CHECK(done.exit_code.return_code == 0);
  CHECK(done.start_time.has_value());
  CHECK(done.end_time.has_value());
  CHECK(std::find(env.node_names.begin(), env.node_names.end(), done.nodes) !=
        env.node_names.end());

  // A submission Slurm refuses is an error with Slurm's reason.
  JobSubmission bad = job;
  bad.partition = "no-such-partition";
  absl::StatusOr<SubmitResult> refused = client->SubmitJob(bad);
  REQUIRE_FALSE(refused.ok());
  INFO(refused.status().ToString());
  CHECK(absl::StrContains(refused.status().message(), "POST /slurm/"));
  CHECK(absl::StrContains(refused.status().message(), "partition"));
}

TEST_CASE("an external job runs with no script where the version takes one, else is refused") {
  const SlurmEnv env = RequireSlurm();
  std::unique_ptr<Client> client = RequireClient(env);
  JobSubmission job;
  job.external = true;
  job.name = "tp-rest-external";
  job.nodes = "1";
  job.time_limit_minutes = 2;
  absl::StatusOr<SubmitResult> submitted = client->SubmitJob(job);
  INFO(submitted.status().ToString() << " (" << client->version() << ")");
  if (!ServesExternalJobs(client->version())) {
    CHECK(absl::IsFailedPrecondition(submitted.status()));
    CHECK(absl::StrContains(submitted.status().message(), "v0.0.43"));
    return;
  }
  REQUIRE(submitted.ok());
  CHECK(submitted->external);
  const Job running = WaitForJob(*client, submitted->job_id,
                                 [](const Job& j) { return j.PrimaryState() != "PENDING"; });
  CHECK(running.state == std::vector<std::string>{"RUNNING"});
  CHECK_FALSE(running.nodes.empty());
  REQUIRE(client->CancelJob(submitted->job_id).ok());
  const Job cancelled =
      WaitForJob(*client, submitted->job_id, [](const Job& j) { return j.Finished(); });
  CHECK(cancelled.PrimaryState() == "CANCELLED");

  job.script = "#!/bin/sh\ntrue\n";
  absl::StatusOr<SubmitResult> with_script = client->SubmitJob(job);
  CHECK(absl::IsInvalidArgument(with_script.status()));
}

TEST_CASE("a long job is updated and cancelled") {
  const SlurmEnv env = RequireSlurm();
  std::unique_ptr<Client> client = RequireClient(env);
  JobSubmission job;
  job.script = "#!/bin/sh\nsleep 600\n";
  job.name = "tp-rest-long";
  job.nodes = "1";
  job.time_limit_minutes = 10;
  absl::StatusOr<SubmitResult> submitted = client->SubmitJob(job);
  INFO(submitted.status().ToString());
  REQUIRE(submitted.ok());
  const JobId id = submitted->job_id;

  const Job running = WaitForJob(*client, id, [](const Job& j) { return j.HasState("RUNNING"); });
  REQUIRE(running.HasState("RUNNING"));

  absl::Status updated =
      client->UpdateJob(id, JobUpdate{.time_limit_minutes = 7, .comment = "updated"});
  INFO(updated.ToString());
  REQUIRE(updated.ok());
  absl::StatusOr<Job> seen = client->GetJob(id);
  REQUIRE(seen.ok());
  CHECK(seen->time_limit_minutes == 7);
  CHECK(seen->comment == "updated");

  absl::Status cancelled = client->CancelJob(id);
  INFO(cancelled.ToString());
  REQUIRE(cancelled.ok());
  const Job done = WaitForJob(*client, id, [](const Job& j) { return j.Finished(); });
  INFO(absl::StrJoin(done.state, "+"));
  CHECK(done.HasState("CANCELLED"));

  // Signalling a job that does not exist names the job and Slurm's error.
  absl::Status missing = client->CancelJob(999999, "SIGKILL");
  REQUIRE_FALSE(missing.ok());
  INFO(missing.ToString());
  CHECK(absl::IsNotFound(missing));
  CHECK(SlurmErrorNumber(missing) == 2017);
  absl::StatusOr<Job> no_job = client->GetJob(999999);
  REQUIRE_FALSE(no_job.ok());
  INFO(no_job.status().ToString());
  CHECK(absl::StrContains(no_job.status().message(), "/job/999999"));
}

TEST_CASE("DeleteNode removes a dynamic node and refuses an unknown one") {
  const SlurmEnv env = RequireSlurm();
  std::unique_ptr<Client> client = RequireClient(env);
  absl::Status unknown = client->DeleteNode("no-such-node");
  REQUIRE_FALSE(unknown.ok());
  INFO(unknown.ToString());
  CHECK(absl::StrContains(unknown.message(), "DELETE /slurm/"));
  CHECK(absl::StrContains(unknown.message(), "no-such-node"));

  const std::string name = absl::StrCat("tp-dyn-", getpid() % 10000);
  absl::StatusOr<CommandResult> created =
      SlurmExec(env, {"scontrol", "create", absl::StrCat("nodename=", name), "state=cloud",
                      "cpus=1", "realmemory=64"});
  REQUIRE(created.ok());
  if (created->exit_code != 0) {
    SKIP("scontrol create nodename refused here (" << created->output << "): no node to delete");
  }
  const Node dynamic = RequireNode(*client, name);
  CHECK(dynamic.state.Has(NodeState::kCloud));
  CHECK(dynamic.cpus == 1);
  absl::Status deleted = client->DeleteNode(name);
  INFO(deleted.ToString());
  REQUIRE(deleted.ok());
  CHECK(absl::IsNotFound(client->GetNode(name).status()));
}

TEST_CASE("Reconfigure succeeds and the controller keeps answering") {
  const SlurmEnv env = RequireSlurm();
  std::unique_ptr<Client> client = RequireClient(env);
  absl::Status s = client->Reconfigure();
  INFO(s.ToString());
  REQUIRE(s.ok());
  // 23.11+ re-execs slurmctld: wait until it answers again.
  absl::StatusOr<std::vector<PingResult>> ping;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  do {
    ping = client->Ping();
    if (ping.ok() && !ping->empty() && ping->front().responding) break;
    absl::SleepFor(absl::Milliseconds(500));
  } while (absl::Now() < deadline);
  INFO(ping.status().ToString());
  REQUIRE(ping.ok());
  CHECK(ping->front().responding);
  // Until every slurmd has registered again (24.11 shows nodes without a version and in
  // transient states for a while), later tests would see a cluster in flux: wait.
  absl::StatusOr<NodeList> nodes;
  std::string states;
  const absl::Time settle = absl::Now() + absl::Seconds(60);
  bool settled = false;
  while (!settled && absl::Now() < settle) {
    nodes = client->GetNodes();
    REQUIRE(nodes.ok());
    settled = nodes->nodes.size() == env.node_names.size();
    states.clear();
    for (const Node& n : nodes->nodes) {
      absl::StrAppend(&states, n.name, "=", n.state.ToString(), "/", n.version, " ");
      settled &= !n.version.empty() && n.state.Has(NodeState::kIdle) &&
                 !n.state.Has(NodeState::kNotResponding);
    }
    if (!settled) absl::SleepFor(absl::Milliseconds(500));
  }
  INFO(states);
  CHECK(settled);
}

TEST_CASE("the UNIX socket with rest_auth/local needs no token") {
  const SlurmEnv env = RequireSlurm();
  if (env.rest_socket.empty()) {
    SKIP(
        "the environment has no slurmrestd UNIX socket (TIDEPOOL_SLURM_REST_SOCKET is empty; "
        "the ctest fixture starts Slurm without --rest-socket)");
  }
  ClientOptions options;
  options.unix_socket = env.rest_socket;
  absl::StatusOr<std::unique_ptr<Client>> client = Client::Connect(options);
  INFO(client.status().ToString());
  REQUIRE(client.ok());
  CHECK(absl::StrContains((*client)->Describe(), "unix:"));
  absl::StatusOr<std::vector<PingResult>> ping = (*client)->Ping();
  INFO(ping.status().ToString());
  REQUIRE(ping.ok());
  absl::StatusOr<NodeList> nodes = (*client)->GetNodes();
  REQUIRE(nodes.ok());
  CHECK(nodes->nodes.size() == env.node_names.size());
}

TEST_CASE("a wrong JWT key is a clear authentication error") {
  const SlurmEnv env = RequireSlurm();
  char dir[] = "/tmp/tidepool-rest-key-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string key_file = absl::StrCat(dir, "/wrong.key");
  std::ofstream(key_file) << "this is not the cluster's key, 32b";
  std::filesystem::permissions(key_file, std::filesystem::perms(0600));

  // Negotiating already needs the key.
  absl::StatusOr<std::unique_ptr<Client>> negotiated = ConnectWithKey(env, key_file);
  absl::StatusOr<std::string> version = env.RestVersion();
  REQUIRE(version.ok());
  absl::StatusOr<std::unique_ptr<Client>> pinned = ConnectWithKey(env, key_file, *version);
  std::remove(key_file.c_str());
  rmdir(dir);
  // /openapi/v3 is served without checking the token: negotiation itself succeeds.
  if (!negotiated.ok()) {
    INFO(negotiated.status().ToString());
    CHECK(absl::IsUnauthenticated(negotiated.status()));
  }
  REQUIRE(pinned.ok());
  // slurmctld checks the token on every RPC except ping: slurmrestd answers HTTP 511
  // (26.05) or 500 with error 1007 "Protocol authentication error".
  absl::StatusOr<NodeList> nodes = (*pinned)->GetNodes();
  REQUIRE_FALSE(nodes.ok());
  INFO(nodes.status().ToString());
  CHECK(absl::IsUnauthenticated(nodes.status()));
  CHECK(absl::StrContains(nodes.status().message(), "GET /slurm/"));
  CHECK(absl::StrContains(nodes.status().message(), "rejected the token"));
  CHECK(absl::IsUnauthenticated(
      (*pinned)->UpdateNode(env.node_names.at(0), NodeUpdate{.comment = "x"})));
}

TEST_CASE("with slurmrestd stopped calls fail Unavailable, and work again after a restart") {
  const SlurmEnv env = RequireSlurm();
  std::unique_ptr<Client> client = RequireClient(env);
  REQUIRE(client->Ping().ok());
  const std::string restart =
      absl::StrCat(::tidepool::testing::SourceRoot(), "/tools/testenv/slurm/restart-rest");

  absl::StatusOr<CommandResult> stopped = RunCommand({restart, "--stop"}, absl::Seconds(60));
  REQUIRE(stopped.ok());
  INFO(stopped->output);
  // Started again however this test ends.
  struct Restart {
    std::string script;
    ~Restart() { RunCommand({script, "--start"}, absl::Seconds(120)).IgnoreError(); }
  } restart_guard{restart};
  REQUIRE(stopped->exit_code == 0);

  const absl::Time t0 = absl::Now();
  absl::StatusOr<std::vector<PingResult>> ping = client->Ping();
  const absl::Duration took = absl::Now() - t0;
  REQUIRE_FALSE(ping.ok());
  INFO(ping.status().ToString());
  CHECK(absl::IsUnavailable(ping.status()));
  CHECK(absl::StrContains(ping.status().message(), "slurmrestd unreachable"));
  CHECK(absl::StrContains(ping.status().message(), "after 4 attempts"));
  CHECK(took >= absl::Milliseconds(1400));  // 200 + 400 + 800 ms of backoff
  absl::Status update = client->UpdateNode(env.node_names.at(0), NodeUpdate{.comment = "x"});
  CHECK(absl::IsUnavailable(update));

  absl::StatusOr<CommandResult> started = RunCommand({restart, "--start"}, absl::Seconds(120));
  REQUIRE(started.ok());
  INFO(started->output);
  REQUIRE(started->exit_code == 0);
  ping = client->Ping();
  INFO(ping.status().ToString());
  CHECK(ping.ok());
  absl::StatusOr<NodeList> nodes = client->GetNodes();
  CHECK(nodes.ok());
}

}  // namespace
}  // namespace tidepool::slurm::rest
