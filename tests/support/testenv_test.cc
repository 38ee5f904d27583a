// The parts of the test-environment harness that need no environment: reading the env
// files the testenv scripts write, expanding their node list, choosing a REST version.
#include "support/testenv.h"

#include <catch2/catch_test_macros.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tidepool::testing {
namespace {

using Strings = std::vector<std::string>;

TEST_CASE("the k8s env file: plain KEY=value lines and comments") {
  const auto vars = ParseEnvFile(
      "# Written by tools/testenv/k8s/up. Plain KEY=value lines: to export them, use\n"
      "#   set -a; . /run/tidepool/k8s/env; set +a\n"
      "KUBECONFIG=/run/tidepool/k8s/admin.kubeconfig\n"
      "TIDEPOOL_K8S_SERVER=https://127.0.0.1:16443\n"
      "\n"
      "TIDEPOOL_K8S_CA=/run/tidepool/k8s/pki/ca.crt\n");
  REQUIRE(vars.ok());
  CHECK(vars->size() == 3);
  CHECK(vars->at("KUBECONFIG") == "/run/tidepool/k8s/admin.kubeconfig");
  CHECK(vars->at("TIDEPOOL_K8S_SERVER") == "https://127.0.0.1:16443");
}

TEST_CASE("the Slurm env file: export lines quoted by printf %q") {
  const auto vars = ParseEnvFile(
      "# Written by tools/testenv/slurm/up; source it.\n"
      "export TIDEPOOL_SLURM_REST_VERSIONS=v0.0.42\\ v0.0.43\\ v0.0.44\n"
      "export TIDEPOOL_SLURM_REST_SOCKET=\n"
      "export TIDEPOOL_SLURM_NODES=n-\\[01-03\\]\n"
      "export TIDEPOOL_SLURM_TOKEN=eyJh.eyJl.c2ln\n");
  REQUIRE(vars.ok());
  CHECK(vars->at("TIDEPOOL_SLURM_REST_VERSIONS") == "v0.0.42 v0.0.43 v0.0.44");
  CHECK(vars->at("TIDEPOOL_SLURM_REST_SOCKET").empty());
  CHECK(vars->at("TIDEPOOL_SLURM_NODES") == "n-[01-03]");
  CHECK(vars->at("TIDEPOOL_SLURM_TOKEN") == "eyJh.eyJl.c2ln");
}

TEST_CASE("quoting styles, concatenation, inline comments, CRLF and continuation lines") {
  const auto vars = ParseEnvFile(
      "A='single $HOME \\ \"x\"'\n"
      "B=\"double \\\"q\\\" \\$x \\\\ 'y'\"\n"
      "C=$'tab\\there\\nnew\\x41\\101\\''\n"
      "D=one'two'\"three\"  # a comment\r\n"
      "  export   E=e;\n"
      "F=a#b\n"
      "G=\"multi\nline\"\n"
      "H=con\\\ntinued\n");
  REQUIRE(vars.ok());
  CHECK(vars->at("A") == "single $HOME \\ \"x\"");
  CHECK(vars->at("B") == "double \"q\" $x \\ 'y'");
  CHECK(vars->at("C") == "tab\there\nnewAA'");
  CHECK(vars->at("D") == "onetwothree");
  CHECK(vars->at("E") == "e");
  CHECK(vars->at("F") == "a#b");
  CHECK(vars->at("G") == "multi\nline");
  CHECK(vars->at("H") == "continued");
}

TEST_CASE("values written by bash's printf %q read back unchanged") {
  const Strings values = {"plain",     "two words",      "it's",        "tab\there",
                          "new\nline", "$dollar",        "back\\slash", "quote\"d",
                          "",          "utf-8 \xc3\xbc", "semi;colon",  "glob*[x]?",
                          "~tilde",    "#hash",          "a=b",         "!bang"};
  std::vector<std::string> argv = {"/bin/bash", "-c",
                                   "i=0; for v; do printf 'export V%d=%q\\n' $((i++)) \"$v\"; "
                                   "done",
                                   "bash"};
  argv.insert(argv.end(), values.begin(), values.end());
  const auto written = RunCommand(argv, absl::Seconds(10));
  REQUIRE(written.ok());
  REQUIRE(written->exit_code == 0);
  const auto vars = ParseEnvFile(written->output);
  INFO(written->output);
  REQUIRE(vars.ok());
  REQUIRE(vars->size() == values.size());
  for (size_t i = 0; i < values.size(); ++i) CHECK(vars->at(absl::StrCat("V", i)) == values[i]);
}

TEST_CASE("expansions, unterminated quotes and stray text are errors with a line number") {
  for (const char* bad :
       {"A=$HOME\n", "A=${X}\n", "A=\"$(date)\"\n", "A=`date`\n", "A='open\n", "A=\"open\n",
        "A=$'open\n", "A=ok b\n", "=value\n", "A value\n", "A=\\"}) {
    INFO(bad);
    const auto vars = ParseEnvFile(bad);
    CHECK(vars.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(vars.status().message().substr(0, 7) == "line 1:");
  }
  CHECK(ParseEnvFile("A=1\nB=2\nC=$X\n").status().message().substr(0, 7) == "line 3:");
  CHECK(ParseEnvFile("A=cost$\n").ok());  // a lone $ is literal, as in the shell
}

TEST_CASE("reading a missing env file is NotFound") {
  CHECK(ReadEnvFile("/nonexistent/tidepool/env").status().code() == absl::StatusCode::kNotFound);
}

TEST_CASE("the newest REST version within the supported range") {
  const Strings sid = {"v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"};
  const Strings trixie = {"v0.0.40", "v0.0.41", "v0.0.42"};
  CHECK(NewestVersionInRange(sid, "v0.0.42", "v0.0.45").value() == "v0.0.45");
  CHECK(NewestVersionInRange(trixie, "v0.0.42", "v0.0.45").value() == "v0.0.42");
  CHECK(NewestVersionInRange({"v0.0.44", "v0.0.46", "junk"}, "v0.0.42", "v0.0.45").value() ==
        "v0.0.44");
  CHECK(NewestVersionInRange({"v0.0.9", "v0.0.10"}, "v0.0.1", "v0.0.99").value() == "v0.0.10");
  CHECK(NewestVersionInRange({"v0.0.40", "v0.0.41"}, "v0.0.42", "v0.0.45").status().code() ==
        absl::StatusCode::kNotFound);
}

EnvVars CompleteSlurmVars() {
  return {{"TIDEPOOL_SLURM_SUITE", "trixie"},
          {"TIDEPOOL_SLURM_VERSION", "24.11.5"},
          {"TIDEPOOL_SLURM_REST_URL", "http://127.0.0.1:6820"},
          {"TIDEPOOL_SLURM_REST_VERSIONS", "v0.0.40 v0.0.41 v0.0.42"},
          {"TIDEPOOL_SLURM_JWT_KEY", "/run/tidepool/slurm/jwt.key"},
          {"TIDEPOOL_SLURM_TOKEN", "t0ken"},
          {"TIDEPOOL_SLURM_NODES", "n-[01-03]"},
          {"TIDEPOOL_SLURM_NODE_COUNT", "3"},
          {"TIDEPOOL_SLURM_CONF_DIR", "/run/tidepool/slurm/etc"},
          {"TIDEPOOL_SLURM_EXEC", "/src/tools/testenv/slurm/exec"}};
}

TEST_CASE("a Slurm env from its variables") {
  const auto env = SlurmEnvFromVars(CompleteSlurmVars());
  REQUIRE(env.ok());
  CHECK(env->suite == "trixie");
  CHECK(env->node_names == Strings{"n-01", "n-02", "n-03"});
  CHECK(env->node_count == 3);
  CHECK(env->rest_socket.empty());
  CHECK(env->RestVersion().value() == "v0.0.42");

  EnvVars missing = CompleteSlurmVars();
  missing.erase("TIDEPOOL_SLURM_TOKEN");
  CHECK(SlurmEnvFromVars(missing).status().message() ==
        "the Slurm env file has no TIDEPOOL_SLURM_TOKEN (was it written by an older up script?)");

  EnvVars mismatch = CompleteSlurmVars();
  mismatch.erase("TIDEPOOL_SLURM_NODE_COUNT");
  mismatch.emplace("TIDEPOOL_SLURM_NODE_COUNT", "4");
  CHECK(SlurmEnvFromVars(mismatch).status().code() == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("a Kubernetes env from its variables") {
  EnvVars vars = {{"KUBECONFIG", "/run/tidepool/k8s/admin.kubeconfig"},
                  {"TIDEPOOL_K8S_SERVER", "https://127.0.0.1:16443"},
                  {"TIDEPOOL_K8S_CA", "/pki/ca.crt"},
                  {"TIDEPOOL_K8S_CLIENT_CERT", "/pki/admin.crt"},
                  {"TIDEPOOL_K8S_CLIENT_KEY", "/pki/admin.key"},
                  {"TIDEPOOL_K8S_BIN_DIR", "/cache/bin"}};
  const auto env = KubernetesEnvFromVars(vars);
  REQUIRE(env.ok());
  CHECK(env->kubectl == "/cache/bin/kubectl");
  CHECK(env->client_key_file == "/pki/admin.key");
  vars.erase("TIDEPOOL_K8S_CA");
  CHECK(KubernetesEnvFromVars(vars).status().code() == absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace tidepool::testing
