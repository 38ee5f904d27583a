// The client over a scripted transport and a fake clock: version choice, retries with
// exponential backoff for GET only, HTTP and Slurm errors with their call, incremental
// node polling.
#include "slurm/rest/client.h"

#include <catch2/catch_test_macros.hpp>
#include <deque>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tidepool::slurm::rest {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1796200000);

// Answers requests from a script, in order; records what was asked.
class ScriptedTransport : public Transport {
 public:
  struct Log {
    std::vector<HttpRequest> requests;
    std::deque<absl::StatusOr<HttpResponse>> script;
  };
  explicit ScriptedTransport(Log* log) : log_(log) {}
  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    log_->requests.push_back(request);
    if (log_->script.empty()) return absl::InternalError("script exhausted");
    absl::StatusOr<HttpResponse> next = std::move(log_->script.front());
    log_->script.pop_front();
    return next;
  }
  std::string Describe() const override { return "scripted"; }

 private:
  Log* log_;
};

HttpResponse Http(int status, std::string body) { return HttpResponse{status, std::move(body)}; }

const char kOpenApi[] =
    R"({"paths":{"/slurm/v0.0.40/ping/":{},"/slurm/v0.0.41/ping/":{},"/slurm/v0.0.42/ping/":{},)"
    R"("/slurmdb/v0.0.42/qos/":{}}})";

std::unique_ptr<Client> Pinned(ScriptedTransport::Log* log, common::FakeClock* clock,
                               ClientOptions options = {}) {
  options.version = "v0.0.44";
  options.clock = clock;
  absl::StatusOr<std::unique_ptr<Client>> client =
      Client::Connect(std::move(options), std::make_unique<ScriptedTransport>(log));
  REQUIRE(client.ok());
  return *std::move(client);
}

TEST_CASE("the newest version both sides speak is chosen from /openapi/v3") {
  ScriptedTransport::Log log;
  log.script.push_back(Http(200, kOpenApi));
  common::FakeClock clock(kStart);
  std::string told;
  std::vector<std::string> served;
  ClientOptions options;
  options.clock = &clock;
  options.on_version = [&](absl::string_view v, const std::vector<std::string>& s) {
    told = std::string(v);
    served = s;
  };
  absl::StatusOr<std::unique_ptr<Client>> client =
      Client::Connect(options, std::make_unique<ScriptedTransport>(&log));
  REQUIRE(client.ok());
  CHECK((*client)->version() == "v0.0.42");
  CHECK(told == "v0.0.42");
  CHECK(served == std::vector<std::string>{"v0.0.40", "v0.0.41", "v0.0.42"});
  REQUIRE(log.requests.size() == 1);
  CHECK(log.requests[0].path == "/openapi/v3");
}

TEST_CASE("versions outside the range are refused with both sides named") {
  ScriptedTransport::Log log;
  log.script.push_back(
      Http(200, R"({"paths":{"/slurm/v0.0.39/ping/":{},"/slurm/v0.0.41/ping/":{}}})"));
  ClientOptions options;
  common::FakeClock clock(kStart);
  options.clock = &clock;
  absl::StatusOr<std::unique_ptr<Client>> client =
      Client::Connect(options, std::make_unique<ScriptedTransport>(&log));
  REQUIRE_FALSE(client.ok());
  INFO(client.status().ToString());
  CHECK(absl::IsFailedPrecondition(client.status()));
  CHECK(absl::StrContains(client.status().message(), "v0.0.39 v0.0.41"));
  CHECK(absl::StrContains(client.status().message(), "v0.0.42–v0.0.45"));

  CHECK(ChooseVersion({"v0.0.45", "v0.0.43", "v0.0.46"}, "v0.0.42", "v0.0.45").value() ==
        "v0.0.45");
  CHECK(ChooseVersion({"v0.0.40", "v0.0.42", "junk"}, "v0.0.42", "v0.0.45").value() == "v0.0.42");
  CHECK(DataParserMinor("v0.0.44") == 44);
  CHECK_FALSE(DataParserMinor("v1.0.44").has_value());
  CHECK_FALSE(ServesExternalJobs("v0.0.42"));
  CHECK(ServesExternalJobs("v0.0.43"));
  CHECK(ServesExternalJobs("v0.0.45"));
  CHECK_FALSE(ServesExternalJobs(""));
}

TEST_CASE("without /openapi/v3 each version's ping is probed, newest first") {
  ScriptedTransport::Log log;
  log.script.push_back(Http(404, "Unable to find requested URL endpoint."));
  log.script.push_back(Http(404, "Unable to find requested URL endpoint."));
  log.script.push_back(Http(404, "Unable to find requested URL endpoint."));
  log.script.push_back(Http(200, R"({"pings":[],"errors":[]})"));
  common::FakeClock clock(kStart);
  ClientOptions options;
  options.clock = &clock;
  absl::StatusOr<std::unique_ptr<Client>> client =
      Client::Connect(options, std::make_unique<ScriptedTransport>(&log));
  REQUIRE(client.ok());
  CHECK((*client)->version() == "v0.0.43");
  REQUIRE(log.requests.size() == 4);
  CHECK(log.requests[1].path == "/slurm/v0.0.45/ping/");
  CHECK(log.requests[3].path == "/slurm/v0.0.43/ping/");
  CHECK(clock.Sleeps().empty());  // 404 is not retried
}

TEST_CASE("GET is retried with exponential backoff on the injected clock") {
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  ClientOptions options;
  options.retry = RetryPolicy{.max_attempts = 5,
                              .initial_backoff = absl::Milliseconds(100),
                              .multiplier = 2.0,
                              .max_backoff = absl::Milliseconds(500)};
  std::unique_ptr<Client> client = Pinned(&log, &clock, options);

  SECTION("until it succeeds") {
    log.script.push_back(absl::UnavailableError("connection refused"));
    log.script.push_back(Http(503, "busy"));
    log.script.push_back(absl::DeadlineExceededError("timeout"));
    log.script.push_back(Http(200, R"({"pings":[{"hostname":"c","responding":true}]})"));
    absl::StatusOr<std::vector<PingResult>> ping = client->Ping();
    INFO(ping.status().ToString());
    REQUIRE(ping.ok());
    CHECK(ping->at(0).hostname == "c");
    CHECK(clock.Sleeps() == std::vector<absl::Duration>{absl::Milliseconds(100),
                                                        absl::Milliseconds(200),
                                                        absl::Milliseconds(400)});
    CHECK(log.requests.size() == 4);
  }
  SECTION("except reconfigure: a retry would restart slurmctld once more") {
    log.script.push_back(absl::DeadlineExceededError("timeout"));
    log.script.push_back(Http(200, "{}"));
    CHECK(absl::IsDeadlineExceeded(client->Reconfigure()));
    CHECK(log.requests.size() == 1);
    CHECK(clock.Sleeps().empty());
  }
  SECTION("and gives up after max_attempts with the last error") {
    for (int i = 0; i < 5; ++i) log.script.push_back(absl::UnavailableError("connection refused"));
    absl::StatusOr<NodeList> nodes = client->GetNodes();
    REQUIRE_FALSE(nodes.ok());
    CHECK(absl::IsUnavailable(nodes.status()));
    CHECK(absl::StrContains(nodes.status().message(), "after 5 attempts"));
    CHECK(clock.Sleeps() ==
          std::vector<absl::Duration>{absl::Milliseconds(100), absl::Milliseconds(200),
                                      absl::Milliseconds(400), absl::Milliseconds(500)});
  }
  SECTION("but not for errors that will not pass") {
    log.script.push_back(Http(401, "Authentication failure"));
    absl::StatusOr<NodeList> nodes = client->GetNodes();
    REQUIRE_FALSE(nodes.ok());
    CHECK(absl::IsUnauthenticated(nodes.status()));
    CHECK(absl::StrContains(nodes.status().message(),
                            "GET /slurm/v0.0.44/nodes/ (HTTP 401): Authentication failure"));
    CHECK(clock.Sleeps().empty());
  }
  SECTION("and never for POST or DELETE") {
    log.script.push_back(absl::UnavailableError("connection reset"));
    absl::Status s =
        client->UpdateNode("n-01", NodeUpdate{.state = NodeUpdate::State::kDrain, .reason = "x"});
    CHECK(absl::IsUnavailable(s));
    log.script.push_back(absl::UnavailableError("connection reset"));
    CHECK(absl::IsUnavailable(client->CancelJob(5)));
    CHECK(clock.Sleeps().empty());
    CHECK(log.requests.size() == 2);
  }
}

// Counts Rejected() calls; sends no headers.
class CountingAuthenticator : public Authenticator {
 public:
  absl::StatusOr<std::vector<Header>> Headers() override { return std::vector<Header>{}; }
  void Rejected() override { ++rejections; }
  std::string Describe() const override { return "counting"; }
  absl::StatusOr<std::string> SlurmUser() override { return "counting"; }
  int rejections = 0;
};

TEST_CASE("the authenticator is told when slurmrestd refuses its credentials") {
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  auto auth = std::make_shared<CountingAuthenticator>();
  std::unique_ptr<Client> client = Pinned(&log, &clock, {.auth = auth});
  log.script.push_back(Http(500, "boom"));
  CHECK_FALSE(client->UpdateNode("n-01", NodeUpdate{.state = NodeUpdate::State::kDrain}).ok());
  CHECK(auth->rejections == 0);
  log.script.push_back(Http(401, "Authentication failure"));
  CHECK(absl::IsUnauthenticated(client->GetNodes().status()));
  CHECK(auth->rejections == 1);
}

TEST_CASE("RetryPolicy::Backoff doubles up to the cap") {
  RetryPolicy p;  // 200 ms, ×2, ≤ 5 s
  CHECK(p.Backoff(0) == absl::ZeroDuration());
  CHECK(p.Backoff(1) == absl::Milliseconds(200));
  CHECK(p.Backoff(2) == absl::Milliseconds(400));
  CHECK(p.Backoff(5) == absl::Milliseconds(3200));
  CHECK(p.Backoff(6) == absl::Seconds(5));
  CHECK(p.Backoff(60) == absl::Seconds(5));
}

TEST_CASE("requests carry the token, the timeout and JSON bodies") {
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  ClientOptions options;
  options.timeout = absl::Seconds(7);
  options.auth = NewJwtAuthenticatorFromKey("k", JwtKeyOptions{.clock = &clock});
  std::unique_ptr<Client> client = Pinned(&log, &clock, options);
  log.script.push_back(Http(200, R"({"errors":[],"warnings":[]})"));
  REQUIRE(
      client->UpdateNode("n 1", NodeUpdate{.state = NodeUpdate::State::kResume, .reason = "back"})
          .ok());
  const HttpRequest& r = log.requests.at(0);
  CHECK(r.method == "POST");
  CHECK(r.path == "/slurm/v0.0.44/node/n%201");
  CHECK(r.timeout == absl::Seconds(7));
  CHECK(r.body == R"({"state":["RESUME"],"reason":"back"})");
  REQUIRE(r.headers.size() == 1);
  CHECK(r.headers[0].first == "X-SLURM-USER-TOKEN");
  CHECK(r.headers[0].second == MintJwt("k", "root", clock.Now(), absl::Minutes(5)));
}

TEST_CASE("HTTP errors with errors[] report Slurm's error") {
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  std::unique_ptr<Client> client = Pinned(&log, &clock);
  log.script.push_back(
      Http(500, R"({"errors":[{"error_number":2017,"error":"Invalid job id specified",)"
                R"("description":"Unable to query JobId=9","source":"_handle_job_get"}]})"));
  absl::StatusOr<Job> job = client->GetJob(9);
  REQUIRE_FALSE(job.ok());
  INFO(job.status().ToString());
  CHECK(absl::IsNotFound(job.status()));
  CHECK(absl::StrContains(job.status().message(), "GET /slurm/v0.0.44/job/9 (HTTP 500)"));
  CHECK(absl::StrContains(job.status().message(), "slurm error 2017 Invalid job id specified"));
  CHECK(SlurmErrorNumber(job.status()) == 2017);
  CHECK(clock.Sleeps().empty());  // an answer, not a transient failure
}

TEST_CASE("a token slurmctld refuses is Unauthenticated, not retried") {
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  std::unique_ptr<Client> client = Pinned(&log, &clock);
  log.script.push_back(Http(511,
                            R"({"errors":[{"error_number":1007,)"
                            R"("error":"Protocol authentication error",)"
                            R"("description":"Failure to query nodes","source":"_dump_nodes"}]})"));
  absl::StatusOr<NodeList> nodes = client->GetNodes();
  REQUIRE_FALSE(nodes.ok());
  INFO(nodes.status().ToString());
  CHECK(absl::IsUnauthenticated(nodes.status()));
  CHECK(absl::StrContains(nodes.status().message(), "(HTTP 511)"));
  CHECK(absl::StrContains(nodes.status().message(), "check the JWT key"));
  CHECK(clock.Sleeps().empty());
}

TEST_CASE("an unknown node is NotFound") {
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  std::unique_ptr<Client> client = Pinned(&log, &clock);
  log.script.push_back(Http(200,
                            R"({"nodes":[],"errors":[{"description":"Failure to query node x",)"
                            R"("error_number":0,"error":"No error","source":"_dump_nodes"}]})"));
  absl::StatusOr<Node> node = client->GetNode("x");
  CHECK(absl::IsNotFound(node.status()));
  CHECK(SlurmErrorNumber(node.status()) == 0);
}

TEST_CASE("a path slurmrestd does not serve is Unimplemented, never NotFound") {
  // NotFound means "Slurm has no such node or job", and a node not in Slurm may lose its
  // pod: a 404 for the path itself (a wrong version, a missing plugin, a proxy) must not
  // read that way.
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  std::unique_ptr<Client> client = Pinned(&log, &clock);
  log.script.push_back(Http(404, "Unable to find requested URL endpoint."));
  absl::StatusOr<NodeList> nodes = client->GetNodes();
  REQUIRE_FALSE(nodes.ok());
  INFO(nodes.status().ToString());
  CHECK(absl::IsUnimplemented(nodes.status()));
  CHECK(absl::StrContains(nodes.status().message(), "serves no such path"));

  log.script.push_back(Http(404, R"({"errors":[{"error_number":9999,"error":"Unknown",)"
                                 R"("description":"x","source":"y"}]})"));
  absl::StatusOr<Node> node = client->GetNode("n-01");
  REQUIRE_FALSE(node.ok());
  CHECK(absl::IsUnimplemented(node.status()));

  // A 404 naming the missing node is an answer about the node.
  log.script.push_back(Http(404, R"({"errors":[{"error_number":2018,)"
                                 R"("error":"Invalid node name specified",)"
                                 R"("description":"x","source":"y"}]})"));
  CHECK(absl::IsNotFound(client->GetNode("n-02").status()));
}

TEST_CASE("incremental node polling passes update_time and understands 304") {
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  std::unique_ptr<Client> client = Pinned(&log, &clock);
  const absl::Time since = absl::FromUnixSeconds(1796204175);
  log.script.push_back(Http(304, ""));
  absl::StatusOr<NodeList> unchanged = client->GetNodesSince(since);
  REQUIRE(unchanged.ok());
  CHECK(unchanged->unchanged);
  CHECK(unchanged->nodes.empty());
  CHECK(unchanged->last_update == since);
  CHECK(log.requests.at(0).path == "/slurm/v0.0.44/nodes/?update_time=1796204175");

  log.script.push_back(Http(200,
                            R"({"nodes":[{"name":"n-01","state":["IDLE","DRAIN"]}],)"
                            R"("last_update":{"set":true,"infinite":false,"number":1796204190}})"));
  absl::StatusOr<NodeList> changed = client->GetNodesSince(since);
  REQUIRE(changed.ok());
  CHECK_FALSE(changed->unchanged);
  REQUIRE(changed->nodes.size() == 1);
  CHECK(changed->nodes[0].state.Has(NodeState::kDrain));
  CHECK(changed->last_update == absl::FromUnixSeconds(1796204190));
}

TEST_CASE("Slurm 24.11's failing update_time query falls back to the full list") {
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  std::unique_ptr<Client> client = Pinned(&log, &clock);
  log.script.push_back(
      Http(500, R"({"errors":[{"description":"Unable to query partitions",)"
                R"("error_number":-1,"error":"Unspecified error","source":"_dump_nodes"}]})"));
  log.script.push_back(
      Http(200, R"({"nodes":[{"name":"n-01","state":["IDLE","DRAIN"]}],"last_update":5})"));
  absl::StatusOr<NodeList> nodes = client->GetNodesSince(absl::FromUnixSeconds(4));
  INFO(nodes.status().ToString());
  REQUIRE(nodes.ok());
  CHECK_FALSE(nodes->unchanged);
  CHECK(nodes->nodes.size() == 1);
  CHECK(nodes->last_update == absl::FromUnixSeconds(5));
  REQUIRE(log.requests.size() == 2);
  CHECK(log.requests[1].path == "/slurm/v0.0.44/nodes/");
}

TEST_CASE("submit, cancel with a signal, update and reconfigure use the documented endpoints") {
  ScriptedTransport::Log log;
  common::FakeClock clock(kStart);
  std::unique_ptr<Client> client = Pinned(&log, &clock);
  log.script.push_back(Http(200, R"({"job_id":12,"step_id":"batch","errors":[],"warnings":[]})"));
  log.script.push_back(Http(200, R"({"status":[],"errors":[]})"));
  log.script.push_back(Http(200, R"({"results":null,"errors":[]})"));
  log.script.push_back(Http(200, R"({"errors":[]})"));
  log.script.push_back(Http(200, R"({"errors":[]})"));
  absl::StatusOr<SubmitResult> submitted =
      client->SubmitJob(JobSubmission{.script = "#!/bin/sh\n"});
  REQUIRE(submitted.ok());
  CHECK(submitted->job_id == 12);
  CHECK(client->CancelJob(12, "SIGKILL").ok());
  CHECK(client->UpdateJob(12, JobUpdate{.time_limit_minutes = 9}).ok());
  CHECK(client->Reconfigure().ok());
  CHECK(client->DeleteNode("dyn-1").ok());
  REQUIRE(log.requests.size() == 5);
  CHECK(log.requests[0].method == "POST");
  CHECK(log.requests[0].path == "/slurm/v0.0.44/job/submit");
  CHECK(log.requests[1].method == "DELETE");
  CHECK(log.requests[1].path == "/slurm/v0.0.44/job/12?signal=SIGKILL");
  CHECK(log.requests[2].path == "/slurm/v0.0.44/job/12");
  CHECK(log.requests[3].method == "GET");
  CHECK(log.requests[3].path == "/slurm/v0.0.44/reconfigure/");
  CHECK(log.requests[4].method == "DELETE");
  CHECK(log.requests[4].path == "/slurm/v0.0.44/node/dyn-1");
  CHECK_FALSE(client->SubmitJob(JobSubmission{}).ok());  // no script: refused locally
}

}  // namespace
}  // namespace tidepool::slurm::rest
