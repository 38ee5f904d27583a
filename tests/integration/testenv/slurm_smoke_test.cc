// The Slurm half of the test environment, through slurmrestd as slurm-syncer will use it:
// the newest data_parser version both sides speak (v0.0.42–v0.0.45), a JWT, ping, the
// node list, and a batch job that runs to COMPLETED.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "support/json.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

struct Slurmrestd {
  SlurmEnv env;
  std::string version;  // v0.0.4x
  std::string prefix;   // /slurm/v0.0.4x

  std::string Describe() const {
    return absl::StrCat("Slurm ", env.version, " (", env.suite, "), REST ", version);
  }
};

Slurmrestd RequireSlurm() {
  absl::StatusOr<SlurmEnv> env = Slurm();
  INFO(env.status().ToString());
  REQUIRE(env.ok());
  absl::StatusOr<std::string> version = env->RestVersion("v0.0.42", "v0.0.45");
  INFO(version.status().ToString());
  REQUIRE(version.ok());
  return Slurmrestd{*env, *version, absl::StrCat("/slurm/", *version)};
}

// The reply as JSON, with an empty errors[] (slurmrestd reports errors with HTTP 200 too).
rapidjson::Document RequireOkReply(const absl::StatusOr<HttpResponse>& response) {
  REQUIRE(response.ok());
  INFO("HTTP " << response->status << ": " << response->body.substr(0, 2000));
  REQUIRE(response->status == 200);
  absl::StatusOr<rapidjson::Document> reply = ParseJson(response->body);
  REQUIRE(reply.ok());
  const rapidjson::Value* errors = FindPath(*reply, "errors");
  REQUIRE((errors == nullptr || (errors->IsArray() && errors->Empty())));
  return *std::move(reply);
}

// Node and job states are an array of flags since v0.0.40 ("IDLE", "DRAIN", …).
std::vector<std::string> Flags(const rapidjson::Value* value) {
  std::vector<std::string> flags;
  if (value == nullptr) return flags;
  if (value->IsString()) flags.emplace_back(value->GetString());
  if (value->IsArray()) {
    for (const rapidjson::Value& flag : value->GetArray()) {
      if (flag.IsString()) flags.emplace_back(flag.GetString());
    }
  }
  return flags;
}

bool Contains(const std::vector<std::string>& values, absl::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

TEST_CASE("slurmrestd answers ping with the newest supported version") {
  const Slurmrestd slurm = RequireSlurm();
  INFO(slurm.Describe());
  const rapidjson::Document reply =
      RequireOkReply(SlurmRestClient(slurm.env).Get(absl::StrCat(slurm.prefix, "/ping")));
  const rapidjson::Value* pings = FindPath(reply, "pings");
  REQUIRE(pings != nullptr);
  REQUIRE(pings->IsArray());
  REQUIRE_FALSE(pings->Empty());
  bool responding = false;
  for (const rapidjson::Value& ping : pings->GetArray()) {
    const rapidjson::Value* flag = FindPath(ping, "responding");
    responding |=
        (flag != nullptr && flag->IsBool() && flag->GetBool()) || StringAt(ping, "pinged") == "UP";
  }
  INFO(ToJson(*pings));
  CHECK(responding);
  // The data_parser version in the reply's meta is the one asked for.
  CHECK(StringAt(reply, "meta.plugin.data_parser") ==
        std::string(absl::StripPrefix(slurm.version, "v")).insert(0, "data_parser/v"));
}

TEST_CASE("slurmrestd refuses a request without a token") {
  const Slurmrestd slurm = RequireSlurm();
  INFO(slurm.Describe());
  HttpsClient anonymous(HttpsClientOptions{.base_url = slurm.env.rest_url});
  absl::StatusOr<HttpResponse> response = anonymous.Get(absl::StrCat(slurm.prefix, "/ping"));
  REQUIRE(response.ok());
  CHECK(response->status == 401);
}

TEST_CASE("the node list shows every node of the environment idle") {
  const Slurmrestd slurm = RequireSlurm();
  INFO(slurm.Describe());
  const rapidjson::Document reply =
      RequireOkReply(SlurmRestClient(slurm.env).Get(absl::StrCat(slurm.prefix, "/nodes")));
  const rapidjson::Value* nodes = FindPath(reply, "nodes");
  REQUIRE(nodes != nullptr);
  REQUIRE(nodes->IsArray());
  std::vector<std::string> all, idle;
  for (const rapidjson::Value& node : nodes->GetArray()) {
    const std::string name = StringAt(node, "name");
    const std::vector<std::string> state = Flags(FindPath(node, "state"));
    all.push_back(absl::StrCat(name, "=", absl::StrJoin(state, "+")));
    if (Contains(state, "IDLE") && state.size() == 1) idle.push_back(name);
  }
  INFO("nodes: " << absl::StrJoin(all, " "));
  std::sort(idle.begin(), idle.end());
  std::vector<std::string> expected = slurm.env.node_names;
  std::sort(expected.begin(), expected.end());
  CHECK(static_cast<int>(idle.size()) == slurm.env.node_count);
  CHECK(idle == expected);
  // The fixture (tests/integration/CMakeLists.txt) asks for three nodes.
  CHECK(slurm.env.node_count == 3);
}

TEST_CASE("a batch job submitted over REST runs to COMPLETED") {
  const Slurmrestd slurm = RequireSlurm();
  INFO(slurm.Describe());
  const HttpsClient rest = SlurmRestClient(slurm.env);
  const std::string marker =
      absl::StrCat("tidepool-smoke-", getpid(), "-", absl::ToUnixMillis(absl::Now()) % 1000000);
  const std::string output = absl::StrCat("/tmp/", marker, "-%j.out");

  rapidjson::StringBuffer body;
  rapidjson::Writer<rapidjson::StringBuffer> w(body);
  w.StartObject();
  w.Key("script");
  w.String(absl::StrCat("#!/bin/sh\nhostname\necho ", marker, "\n").c_str());
  w.Key("job");
  w.StartObject();
  w.Key("name");
  w.String("tp-smoke");
  w.Key("nodes");
  w.String("1");
  w.Key("tasks");
  w.Int(1);
  w.Key("current_working_directory");
  w.String("/tmp");
  w.Key("environment");
  w.StartArray();
  w.String("PATH=/bin:/usr/bin");
  w.EndArray();
  w.Key("standard_output");
  w.String(output.c_str());
  w.EndObject();
  w.EndObject();

  const rapidjson::Document submitted =
      RequireOkReply(rest.Post(absl::StrCat(slurm.prefix, "/job/submit"), body.GetString()));
  const rapidjson::Value* job_id = FindPath(submitted, "job_id");
  REQUIRE(job_id != nullptr);
  REQUIRE(job_id->IsUint());
  const std::string id = absl::StrCat(job_id->GetUint());

  // Poll the job until it has finished (a 3-node idle cluster runs it at once).
  const std::vector<std::string> final_states = {"COMPLETED", "FAILED",    "CANCELLED",
                                                 "TIMEOUT",   "NODE_FAIL", "OUT_OF_MEMORY",
                                                 "BOOT_FAIL", "DEADLINE",  "PREEMPTED"};
  std::vector<std::string> state;
  std::string node;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    const rapidjson::Document job =
        RequireOkReply(rest.Get(absl::StrCat(slurm.prefix, "/job/", id)));
    state = Flags(FindPath(job, "jobs.0.job_state"));
    node = StringAt(job, "jobs.0.nodes");
    // A final state with the COMPLETING flag still runs its epilog: wait for it to go.
    if (std::any_of(state.begin(), state.end(),
                    [&](const std::string& s) { return Contains(final_states, s); }) &&
        !Contains(state, "COMPLETING")) {
      break;
    }
    absl::SleepFor(absl::Milliseconds(250));
  }
  INFO("job " << id << " state " << absl::StrJoin(state, "+") << " on '" << node << "'");
  REQUIRE(state == std::vector<std::string>{"COMPLETED"});
  CHECK(Contains(slurm.env.node_names, node));

  // What the job wrote, read inside the Slurm root with the exec helper.
  absl::StatusOr<CommandResult> written =
      SlurmExec(slurm.env, {"cat", absl::StrCat("/tmp/", marker, "-", id, ".out")});
  REQUIRE(written.ok());
  INFO(written->output);
  CHECK(written->exit_code == 0);
  CHECK(written->output == absl::StrCat(node, "\n", marker, "\n"));
}

}  // namespace
}  // namespace tidepool::testing
