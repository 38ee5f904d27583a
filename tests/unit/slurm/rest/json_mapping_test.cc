// The JSON mapping against replies recorded from slurmrestd 26.05.5 (fixtures/*_v0.0.4x.json)
// and hand-written shapes (plain numbers, single strings), errors[] in 200 replies, and
// malformed input.
#include "slurm/rest/json_mapping.h"

#include <catch2/catch_test_macros.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace tidepool::slurm::rest {
namespace {

std::string Fixture(const std::string& name) {
  std::ifstream in(std::string(TIDEPOOL_REST_FIXTURES) + "/" + name);
  REQUIRE(in.good());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

CallContext Get(const std::string& path) { return CallContext{"GET", path, 200}; }

TEST_CASE("a recorded v0.0.42 node list maps every node") {
  absl::StatusOr<NodeList> list = ParseNodesReply(Fixture("nodes_v0.0.42.json"), Get("/nodes/"));
  INFO(list.status().ToString());
  REQUIRE(list.ok());
  REQUIRE(list->nodes.size() == 3);
  CHECK_FALSE(list->unchanged);
  CHECK(list->last_update == absl::FromUnixSeconds(1796204175));
  const Node& n = list->nodes[0];
  CHECK(n.name == "n-01");
  CHECK(n.hostname == "n-01");
  CHECK(n.address == "n-01");
  CHECK(n.state == NodeStateSet{NodeState::kIdle});
  CHECK(n.state.ToString() == "IDLE");
  CHECK(n.cpus == 2);
  CHECK(n.real_memory_mb == 1024);
  CHECK(n.alloc_cpus == 0);
  CHECK(n.alloc_memory_mb == 0);
  CHECK_FALSE(n.reason_changed_at.has_value());  // 0 = never
  CHECK(n.partitions == std::vector<std::string>{"debug"});
  CHECK(n.features.empty());
  CHECK(n.version == "26.05.5");
  CHECK(list->nodes[2].name == "n-03");
}

TEST_CASE("a recorded v0.0.45 drained node keeps reason, user and time") {
  absl::StatusOr<NodeList> list =
      ParseNodesReply(Fixture("node_drained_v0.0.45.json"), Get("/node/n-02"));
  INFO(list.status().ToString());
  REQUIRE(list.ok());
  REQUIRE(list->nodes.size() == 1);
  const Node& n = list->nodes[0];
  CHECK(n.name == "n-02");
  CHECK(n.state.Has(NodeState::kIdle));
  CHECK(n.state.Has(NodeState::kDrain));
  CHECK_FALSE(n.state.Has(NodeState::kDown));
  CHECK(n.state.ToString() == "IDLE+DRAIN");
  CHECK(n.reason == "capture");
  CHECK(n.reason_set_by_user == "root");
  REQUIRE(n.reason_changed_at.has_value());
  CHECK(*n.reason_changed_at == absl::FromUnixSeconds(1796204188));
}

TEST_CASE("node numbers may be plain or number objects, lists may be strings") {
  absl::StatusOr<NodeList> list =
      ParseNodesReply(Fixture("nodes_gpu_plain_numbers.json"), Get("/nodes/"));
  INFO(list.status().ToString());
  REQUIRE(list.ok());
  REQUIRE(list->nodes.size() == 2);
  const Node& a = list->nodes[0];
  CHECK(a.cpus == 128);
  CHECK(a.alloc_cpus == 64);
  CHECK(a.real_memory_mb == 1031000);
  CHECK(a.alloc_memory_mb == 515500);
  CHECK(a.gres == "gpu:h100:8(S:0-1)");
  CHECK(a.gres_used == "gpu:h100:4(IDX:0-3)");
  CHECK(a.features == std::vector<std::string>{"h100", "ib"});
  CHECK(a.active_features == std::vector<std::string>{"h100"});
  CHECK(a.partitions == std::vector<std::string>{"gpu", "all"});
  CHECK(a.comment == R"({"k8s":"cordoned"})");
  CHECK(a.reason == "gpu xid 79");
  CHECK(a.reason_set_by_user == "slurm-syncer");
  CHECK(a.reason_changed_at == absl::FromUnixSeconds(1796204100));
  CHECK(a.state.Has(NodeState::kMixed));
  CHECK(a.state.Has(NodeState::kDrain));
  CHECK(a.state.Has(NodeState::kCompleting));
  CHECK(a.state.unknown() == std::vector<std::string>{"EXTERNAL_FLAG"});
  CHECK(a.state.ToString() == "MIXED+DRAIN+COMPLETING+EXTERNAL_FLAG");
  CHECK(a.version == "24.11.5");

  const Node& b = list->nodes[1];
  CHECK(b.state == NodeStateSet{NodeState::kIdle});
  CHECK(b.cpus == 128);
  CHECK(b.real_memory_mb == 1031000);
  CHECK(b.alloc_cpus == 0);  // unset
  CHECK_FALSE(b.reason_changed_at.has_value());
  CHECK(b.features == std::vector<std::string>{"h100", "ib"});
  CHECK(b.partitions.empty());
  CHECK(b.reason.empty());
  CHECK(list->last_update == absl::FromUnixSeconds(1796204190));
}

TEST_CASE("fields the model does not keep may hold anything") {
  absl::StatusOr<NodeList> list = ParseNodesReply(
      std::string(R"({"nodes":[{"name":"a","cpu_load":1e300,"x":{"y":[[-1.5e308,null]]},)"
                  R"("cpus":2.0}],"meta":{"big":18446744073709551615}})"),
      Get("/nodes/"));
  INFO(list.status().ToString());
  REQUIRE(list.ok());
  CHECK(list->nodes.at(0).cpus == 2);
}

TEST_CASE("errors[] in an HTTP 200 reply is an error with its context") {
  const CallContext call = Get("/slurm/v0.0.45/node/nosuch");
  absl::StatusOr<NodeList> list = ParseNodesReply(Fixture("node_missing_v0.0.45.json"), call);
  REQUIRE_FALSE(list.ok());
  const std::string message(list.status().message());
  INFO(message);
  CHECK(absl::StrContains(message, "GET /slurm/v0.0.45/node/nosuch (HTTP 200)"));
  CHECK(absl::StrContains(message, "Failure to query node nosuch"));
  CHECK(absl::StrContains(message, "_dump_nodes"));
  CHECK(SlurmErrorNumber(list.status()) == 0);

  absl::StatusOr<SubmitResult> submit = ParseSubmitReply(
      Fixture("submit_error_v0.0.45.json"), CallContext{"POST", "/slurm/v0.0.45/job/submit", 200});
  REQUIRE_FALSE(submit.ok());
  INFO(submit.status().ToString());
  CHECK(absl::StrContains(submit.status().message(), "slurm error 2000 Invalid partition name"));
  CHECK(absl::StrContains(submit.status().message(), "Batch job submission failed"));
  CHECK(SlurmErrorNumber(submit.status()) == 2000);
  CHECK(absl::IsFailedPrecondition(submit.status()));

  // Errors are checked before anything else, also for replies that look fine otherwise.
  const std::string ping_with_error =
      R"({"pings":[],"errors":[{"error_number":2017,"error":"Invalid job id specified",)"
      R"("description":"x","source":"y"}]})";
  absl::StatusOr<std::vector<PingResult>> ping = ParsePingReply(ping_with_error, Get("/ping/"));
  REQUIRE_FALSE(ping.ok());
  CHECK(absl::IsNotFound(ping.status()));
  CHECK(SlurmErrorNumber(ping.status()) == 2017);
}

TEST_CASE("a signal reply reports per-job errors from status[]") {
  const CallContext call{"DELETE", "/slurm/v0.0.45/job/424242", 200};
  absl::Status s = ParseSignalReply(Fixture("cancel_error_v0.0.45.json"), call);
  INFO(s.ToString());
  CHECK(absl::IsNotFound(s));
  CHECK(absl::StrContains(s.message(), "Invalid job id specified"));
  CHECK(SlurmErrorNumber(s) == 2017);
  CHECK(ParseSignalReply(R"({"status":[],"errors":[],"warnings":[]})", call).ok());
}

TEST_CASE("malformed or unexpected JSON is an error with a path, never a crash") {
  const CallContext call = Get("/slurm/v0.0.45/nodes/");
  struct Case {
    std::string body;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {"", "not JSON"},
      {"{\"nodes\":[{\"name\":\"a\"", "not JSON"},
      {"Authentication failure", "not JSON"},
      {std::string("{\"nodes\":[{\"name\":\"a\0b\"}]}", 22), "not JSON"},
      {"[]", "an array at the top"},
      {"\"nodes\"", "a string at the top"},
      {"7", "at the top"},
      {"null", "at the top"},
      {"{}", "nodes: missing"},
      {R"({"nodes":[{"name":"a","cpus":"many"}]})", "nodes[0].cpus: expected a number"},
      {R"({"nodes":[{"name":"a"},{"name":"b","cpus":{"set":true,"number":"x"}}]})",
       "nodes[1].cpus.number: expected a number"},
      {R"({"nodes":[{"name":"a","state":{"x":1}}]})", "nodes[0].state: expected an array"},
      {R"({"nodes":[{"name":"a","features":[1,2]}]})", "nodes[0].features[]"},
      {R"({"nodes":[{"name":"a","partitions":[{"x":1}]}]})", "nodes[0].partitions[]"},
      {R"({"nodes":[{"name":"a","state":[["IDLE"]]}]})", "nodes[0].state[]"},
      {R"({"nodes":[{"name":"a","reason":7}]})", "nodes[0].reason: expected a string"},
      {R"({"nodes":[7]})", "nodes[]: expected objects"},
      {R"({"nodes":[{"cpus":1}]})", "nodes[0].name: missing"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<NodeList> list = ParseNodesReply(c.body, call);
    INFO("body: " << c.body);
    REQUIRE_FALSE(list.ok());
    INFO(list.status().ToString());
    CHECK(absl::IsInternal(list.status()));
    CHECK(absl::StrContains(list.status().message(), "GET /slurm/v0.0.45/nodes/ (HTTP 200)"));
    CHECK(absl::StrContains(list.status().message(), c.expect));
  }

  // Nested past any real reply (two million '[' exhausted the recursive parser's stack):
  // an error, not a crash, for the streamed and the document-based mappings.
  const std::string deep = R"({"nodes":)" + std::string(2'000'000, '[');
  CHECK(absl::IsInternal(ParseNodesReply(deep, call).status()));
  CHECK(absl::StrContains(
      ParseJobsReply(R"({"jobs":)" + std::string(2'000'000, '['), call).status().message(),
      "nested deeper than 512 levels"));
  CHECK(ErrorsInBody(std::string(2'000'000, '{')).empty());

  // The document-based mappings too.
  CHECK(absl::StrContains(ParseJobsReply(R"({"jobs":{}})", call).status().message(),
                          "jobs: expected an array, got an object"));
  CHECK(
      absl::StrContains(ParseJobsReply(R"({"jobs":[{"job_id":"seven"}]})", call).status().message(),
                        "jobs[0].job_id: expected a number or a number object, got a string"));
  CHECK(absl::StrContains(
      ParseJobsReply(R"({"jobs":[{"job_id":1,"start_time":{"set":"yes"}}]})", call)
          .status()
          .message(),
      "jobs[0].start_time.set: expected a boolean"));
  CHECK(absl::StrContains(ParsePingReply("{", call).status().message(), "not JSON"));
  CHECK(absl::StrContains(ParseDiagReply("{}", call).status().message(), "statistics: missing"));
  CHECK(absl::StrContains(ParseSubmitReply("{}", call).status().message(), "job_id"));
  CHECK(absl::StrContains(ParsePartitionsReply("[1]", call).status().message(),
                          "expected an object, got an array"));
  CHECK(ParseEmptyReply("{\"errors\":[]}", call).ok());
  CHECK_FALSE(ParseEmptyReply("null", call).ok());
}

TEST_CASE("a recorded running job maps") {
  absl::StatusOr<JobList> jobs = ParseJobsReply(Fixture("job_running_v0.0.45.json"), Get("/job/1"));
  INFO(jobs.status().ToString());
  REQUIRE(jobs.ok());
  REQUIRE(jobs->jobs.size() == 1);
  const Job& j = jobs->jobs[0];
  CHECK(j.id == 1);
  CHECK(j.name == "cap");
  CHECK(j.state == std::vector<std::string>{"RUNNING"});
  CHECK(j.PrimaryState() == "RUNNING");
  CHECK_FALSE(j.Finished());
  CHECK(j.nodes == "n-01");
  CHECK(j.partition == "debug");
  CHECK(j.user == "root");
  CHECK(j.reason == "None");
  CHECK(j.start_time == absl::FromUnixSeconds(1796204187));
  CHECK(j.submit_time == absl::FromUnixSeconds(1796204187));
  CHECK(j.end_time == absl::FromUnixSeconds(1796204487));
  CHECK(j.time_limit_minutes == 5);
  CHECK(j.comment == "hello");
  CHECK(j.exit_code.return_code == 0);
  CHECK_FALSE(j.exit_code.signal.has_value());
  CHECK(j.exit_code.status == std::vector<std::string>{"SUCCESS"});
}

TEST_CASE("a recorded jobs/state reply maps each entry to its job record, in v0.0.42 and v0.0.45") {
  for (const char* version : {"v0.0.42", "v0.0.45"}) {
    INFO(version);
    absl::StatusOr<std::vector<JobStateEntry>> states = ParseJobStatesReply(
        Fixture(absl::StrCat("job_states_", version, ".json")), Get("/jobs/state/"));
    INFO(states.status().ToString());
    REQUIRE(states.ok());
    const std::vector<JobStateEntry> expected = {
        {.text = "1054", .id = 1054, .state = {"CANCELLED"}},
        {.text = "1057_1", .id = 1057, .state = {"RUNNING"}},
        {.text = "1056", .id = 1056, .state = {"PENDING"}},
        {.text = "1055_2", .id = 1055, .state = {"PENDING"}},
        {.text = "1055_3", .id = 1055, .state = {"PENDING"}},
        {.text = "1055_4", .id = 1055, .state = {"PENDING"}}};
    CHECK(*states == expected);
  }
}

TEST_CASE("jobs/state ids: a het component and a plain number map; anything else is an error") {
  absl::StatusOr<std::vector<JobStateEntry>> states = ParseJobStatesReply(
      R"({"jobs":[{"job_id":"77+1","state":["RUNNING"]},{"job_id":78,"state":[]}]})",
      Get("/jobs/state/"));
  INFO(states.status().ToString());
  REQUIRE(states.ok());
  REQUIRE(states->size() == 2);
  CHECK((*states)[0].id == 77);
  CHECK((*states)[1].id == 78);
  CHECK((*states)[1].text == "78");
  for (const char* bad :
       {R"({"jobs":[{"job_id":"","state":[]}]})", R"({"jobs":[{"job_id":"x1","state":[]}]})",
        R"({"jobs":[{"job_id":"0","state":[]}]})",
        R"({"jobs":[{"job_id":"99999999999_1","state":[]}]})",
        R"({"jobs":[{"job_id":-3,"state":[]}]})", R"({"jobs":[{"state":["PENDING"]}]})",
        R"({"jobs":[{"job_id":"5","state":7}]})", R"({"jobs":{}})"}) {
    INFO(bad);
    absl::StatusOr<std::vector<JobStateEntry>> parsed =
        ParseJobStatesReply(bad, Get("/jobs/state/"));
    REQUIRE_FALSE(parsed.ok());
    CHECK(absl::StrContains(parsed.status().message(), "jobs"));
  }
}

TEST_CASE("job states: finished only without COMPLETING") {
  Job j;
  j.state = {"COMPLETED"};
  CHECK(j.Finished());
  j.state = {"CANCELLED", "COMPLETING"};
  CHECK_FALSE(j.Finished());
  j.state = {"PENDING"};
  CHECK_FALSE(j.Finished());
  absl::StatusOr<JobList> old =
      ParseJobsReply(R"({"jobs":[{"job_id":7,"job_state":"FAILED","exit_code":2,)"
                     R"("time_limit":{"set":true,"infinite":true,"number":0}}]})",
                     Get("/jobs/"));
  REQUIRE(old.ok());
  CHECK(old->jobs[0].state == std::vector<std::string>{"FAILED"});
  CHECK(old->jobs[0].exit_code.return_code == 2);
  CHECK_FALSE(old->jobs[0].time_limit_minutes.has_value());  // infinite
}

TEST_CASE("submit reply, ping, diag, partitions and reservations map") {
  absl::StatusOr<SubmitResult> submit =
      ParseSubmitReply(Fixture("submit_v0.0.45.json"), Get("/job/submit"));
  REQUIRE(submit.ok());
  CHECK(submit->job_id == 1);
  CHECK(submit->step_id == "batch");

  absl::StatusOr<std::vector<PingResult>> ping =
      ParsePingReply(Fixture("ping_v0.0.45.json"), Get("/ping/"));
  REQUIRE(ping.ok());
  REQUIRE(ping->size() == 1);
  CHECK((*ping)[0].hostname == "vm");
  CHECK((*ping)[0].responding);
  CHECK((*ping)[0].primary);
  CHECK((*ping)[0].latency_us == 1716);

  absl::StatusOr<DiagInfo> diag = ParseDiagReply(Fixture("diag_v0.0.45.json"), Get("/diag/"));
  INFO(diag.status().ToString());
  REQUIRE(diag.ok());
  CHECK(diag->server_thread_count == 1);
  CHECK(diag->req_time == absl::FromUnixSeconds(1796204175));
  CHECK(diag->schedule_cycle_max_us == 205);
  CHECK(diag->schedule_cycle_mean_us == 205);
  CHECK(diag->backfill_cycle_last_us == 0);
  CHECK(diag->jobs_submitted == 0);
  CHECK_FALSE(diag->backfill_active);

  absl::StatusOr<std::vector<Partition>> parts =
      ParsePartitionsReply(Fixture("partitions_v0.0.45.json"), Get("/partitions/"));
  INFO(parts.status().ToString());
  REQUIRE(parts.ok());
  REQUIRE(parts->size() == 1);
  const Partition& p = (*parts)[0];
  CHECK(p.name == "debug");
  CHECK(p.nodes == "n-[01-03]");
  CHECK(p.total_nodes == 3);
  CHECK(p.total_cpus == 6);
  CHECK(p.state == std::vector<std::string>{"UP"});
  CHECK(p.is_default == true);
  // Slurm 24.11 (v0.0.42) reports no flags: whether it is the default is unknown.
  absl::StatusOr<std::vector<Partition>> old = ParsePartitionsReply(
      R"({"partitions":[{"name":"debug","partition":{"state":["UP"]}}]})", Get("/partitions/"));
  REQUIRE(old.ok());
  CHECK_FALSE(old->at(0).is_default.has_value());
  CHECK_FALSE(p.max_time_minutes.has_value());  // infinite

  absl::StatusOr<std::vector<Reservation>> res =
      ParseReservationsReply(Fixture("reservations_v0.0.45.json"), Get("/reservations/"));
  INFO(res.status().ToString());
  REQUIRE(res.ok());
  REQUIRE(res->size() == 1);
  const Reservation& r = (*res)[0];
  CHECK(r.name == "maint");
  CHECK(r.node_list == "n-03");
  CHECK(r.node_count == 1);
  CHECK(r.flags == std::vector<std::string>{"MAINT", "SPEC_NODES"});
  CHECK(r.users == "root");
  CHECK(r.start_time == absl::FromUnixSeconds(1796207787));
  CHECK(r.end_time == absl::FromUnixSeconds(1796211387));
}

TEST_CASE("the OpenAPI document lists the versions served") {
  absl::StatusOr<std::vector<std::string>> versions =
      ParseOpenApiVersions(Fixture("openapi_v3_sid.json"), Get("/openapi/v3"));
  INFO(versions.status().ToString());
  REQUIRE(versions.ok());
  CHECK(*versions == std::vector<std::string>{"v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"});
  CHECK_FALSE(ParseOpenApiVersions("{}", Get("/openapi/v3")).ok());
  absl::StatusOr<std::vector<std::string>> none =
      ParseOpenApiVersions(R"({"paths":{"/slurmdb/v0.0.42/qos/":{}}})", Get("/openapi/v3"));
  REQUIRE(none.ok());
  CHECK(none->empty());
}

TEST_CASE("request bodies") {
  NodeUpdate drain;
  drain.state = NodeUpdate::State::kDrain;
  drain.reason = "maintenance \"now\"";
  CHECK(NodeUpdateBody(drain) == R"({"state":["DRAIN"],"reason":"maintenance \"now\""})");
  NodeUpdate features;
  features.features = std::vector<std::string>{"h100", "ib"};
  features.comment = "c";
  CHECK(NodeUpdateBody(features) == R"({"comment":"c","features":["h100","ib"]})");
  NodeUpdate clear;
  clear.features.emplace();
  CHECK(NodeUpdateBody(clear) == R"({"features":[""],"features_act":[""]})");
  clear.active_features.emplace();
  CHECK(NodeUpdateBody(clear) == R"({"features":[""],"features_act":[""]})");

  JobSubmission job;
  job.script = "#!/bin/sh\ntrue\n";
  job.name = "j";
  job.partition = "gpu";
  job.nodes = "2";
  job.tasks = 2;
  job.cpus_per_task = 4;
  job.memory_per_node_mb = 2048;
  job.tres_per_node = "gres/gpu:h100:4";
  job.time_limit_minutes = 30;
  job.account = "acct";
  job.qos = "high";
  job.constraints = "h100&ib";
  job.required_nodes = {"gpu-001", "gpu-002"};
  job.comment = "from k8s";
  CHECK(JobSubmitBody(job) ==
        R"({"job":{"script":"#!/bin/sh\ntrue\n","name":"j","partition":"gpu","nodes":"2",)"
        R"("tasks":2,"cpus_per_task":4,)"
        R"("memory_per_node":{"set":true,"infinite":false,"number":2048},)"
        R"("tres_per_node":"gres/gpu:h100:4",)"
        R"("time_limit":{"set":true,"infinite":false,"number":30},"account":"acct",)"
        R"("qos":"high","constraints":"h100&ib","required_nodes":["gpu-001","gpu-002"],)"
        R"("comment":"from k8s","environment":["PATH=/bin:/usr/bin"],)"
        R"("current_working_directory":"/tmp"}})");

  JobSubmission placed;
  placed.script = "#!/bin/sh\n";
  placed.reservation = "maint";
  placed.sharing = JobSharing::kOk;
  CHECK(JobSubmitBody(placed) ==
        R"({"job":{"script":"#!/bin/sh\n","environment":["PATH=/bin:/usr/bin"],)"
        R"("current_working_directory":"/tmp","reservation":"maint","shared":["oversubscribe"]}})");
  placed.sharing = JobSharing::kNone;
  CHECK(absl::StrContains(JobSubmitBody(placed), R"("shared":["none"])"));
  placed.sharing = JobSharing::kUser;
  CHECK(absl::StrContains(JobSubmitBody(placed), R"("shared":["user"])"));

  JobSubmission external;
  external.external = true;
  external.name = "held";
  CHECK(JobSubmitBody(external) ==
        R"({"job":{"flags":["EXTERNAL_JOB"],"name":"held","environment":["PATH=/bin:/usr/bin"],)"
        R"("current_working_directory":"/tmp"}})");

  JobUpdate update;
  update.time_limit_minutes = 7;
  update.comment = "changed";
  CHECK(JobUpdateBody(update) ==
        R"({"time_limit":{"set":true,"infinite":false,"number":7},"comment":"changed"})");
}

TEST_CASE("node state names round-trip") {
  for (int i = 0; i <= static_cast<int>(NodeState::kInvalid); ++i) {
    const NodeState s = static_cast<NodeState>(i);
    CHECK(ParseNodeState(NodeStateName(s)) == s);
  }
  CHECK_FALSE(ParseNodeState("idle").has_value());
}

}  // namespace
}  // namespace tidepool::slurm::rest
