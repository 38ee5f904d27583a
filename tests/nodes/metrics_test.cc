// The metrics stack on a working system: a real Prometheus scrapes the five services (beside
// the test) of a Slurm cluster of pods on real kubelet nodes, after the cluster did what the
// dashboards show (a placeholder pod placed and deleted, a cordon and uncordon, a scale-in
// and back, a batch job running and one held). Then every dashboard panel's query and
// every alert's signal (tools/dashboards/generate --queries) returns a value, every metric
// they name is one a service serves, every rule evaluates and none fires, and promtool
// passes every service's /metrics.
#include <catch2/catch_test_macros.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "nodes/kubectl_helpers.h"
#include "nodes/prometheus_server.h"
#include "nodes/research_cluster.h"
#include "nodes/tidepool_services.h"
#include "support/eventually.h"
#include "support/http_get.h"
#include "support/json.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

struct PanelQuery {
  std::string where;
  std::string expr;
  std::vector<std::string> metrics;
};

std::vector<PanelQuery> DashboardQueries() {
  absl::StatusOr<CommandResult> listed =
      RunCommand({SourceRoot() + "/tools/dashboards/generate", "--queries"}, absl::Seconds(30));
  REQUIRE(listed.ok());
  INFO(listed->output);
  REQUIRE(listed->exit_code == 0);
  std::vector<PanelQuery> queries;
  for (absl::string_view line : absl::StrSplit(listed->output, '\n', absl::SkipEmpty())) {
    absl::StatusOr<rapidjson::Document> json = ParseJson(line);
    REQUIRE(json.ok());
    PanelQuery query{StringAt(*json, "where"), StringAt(*json, "expr"), {}};
    for (const rapidjson::Value& name : FindPath(*json, "metrics")->GetArray()) {
      query.metrics.push_back(name.GetString());
    }
    queries.push_back(std::move(query));
  }
  return queries;
}

bool AwaitSinfo(const KubernetesEnv& env, const std::string& ns, const std::string& want) {
  std::string sinfo;
  const bool seen =
      PollUntil(
          [&] {
            sinfo = InController(env, ns, {"sinfo", "-h", "-o", "%P %t %D %N"}).value_or("");
            return absl::StrContains(sinfo, want);
          },
          absl::Seconds(240), absl::Seconds(2))
          .has_value();
  UNSCOPED_INFO("sinfo: " << sinfo);
  return seen;
}

std::string PodManifest(const std::string& ns, const std::string& tag) {
  return absl::StrReplaceAll(R"(apiVersion: v1
kind: Pod
metadata: {name: placed, namespace: NS}
spec:
  schedulerName: tidepool
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: placed
    image: localhost/tidepool/login:TAG
    imagePullPolicy: Never
    command: [sleep, "3600"]
    resources: {requests: {cpu: "1", memory: 64Mi}}
)",
                             {{"NS", ns}, {"TAG", tag}});
}

// cluster-controller's successful reconfigures so far (-1 when unreadable).
double ReconfiguresDone(const TidepoolServices& services) {
  constexpr absl::string_view kSeries =
      R"(tidepool_cluster_controller_reconfigures_total{result="ok"} )";
  absl::StatusOr<HttpResponse> metrics = HttpGet(
      absl::StrCat("http://127.0.0.1:", services.HttpPorts().at("cluster-controller"), "/metrics"));
  if (!metrics.ok()) return -1;
  for (absl::string_view line : absl::StrSplit(metrics->body, '\n')) {
    double value = 0;
    if (absl::ConsumePrefix(&line, kSeries) && absl::SimpleAtod(line, &value)) return value;
  }
  return -1;
}

// What the dashboards show, done once: each counter and histogram gets samples.
void ExerciseCluster(const KubernetesEnv& env, const std::string& ns, const std::string& tag,
                     const TidepoolServices& services) {
  // A pod placed through Slurm, then deleted (its placeholder job cancelled).
  Apply(env, PodManifest(ns, tag));
  CHECK(PollUntil(
            [&] {
              return TryKubectl(
                         env, {"-n", ns, "get", "pod", "placed", "-o", "jsonpath={.status.phase}"})
                         .value_or("") == "Running";
            },
            absl::Seconds(90), absl::Seconds(1))
            .has_value());
  MustKubectl(env, {"-n", ns, "delete", "pod", "placed", "--wait=true"});
  // A cordon drains the node's Slurm node, an uncordon undrains it.
  MustKubectl(env, {"cordon", "knode-2"});
  CHECK(AwaitSinfo(env, ns, "drain"));
  MustKubectl(env, {"uncordon", "knode-2"});
  CHECK(AwaitSinfo(env, ns, "batch* idle 2 cpu-[01-02]"));
  // A scale-in drains and deletes a slurmd pod; scaling back makes it again. The scale-back
  // waits for the reconfigure of the smaller cluster: made within cluster-controller's
  // propagation delay, it would bring back the configuration Slurm already has, and the
  // reconfigure panels and alert would have nothing to show.
  const double reconfigures_before = ReconfiguresDone(services);
  MustKubectl(env, {"-n", ns, "scale", "nodeset", "cpu", "--replicas=1"});
  CHECK(PollUntil(
            [&] {
              return !TryKubectl(env, {"-n", ns, "get", "pod", "cpu-02"}).has_value();
            },
            absl::Seconds(120), absl::Seconds(1))
            .has_value());
  CHECK(PollUntil([&] { return ReconfiguresDone(services) > reconfigures_before; },
                  absl::Seconds(60), absl::Seconds(1))
            .has_value());
  MustKubectl(env, {"-n", ns, "scale", "nodeset", "cpu", "--replicas=2"});
  CHECK(AwaitSinfo(env, ns, "batch* idle 2 cpu-[01-02]"));
  // Its slurmd waited for slurmctld to list the node again instead of exiting and restarting.
  CHECK(TryKubectl(env, {"-n", ns, "get", "pod", "cpu-02", "-o",
                         "jsonpath={.status.containerStatuses[0].restartCount}"})
            .value_or("") == "0");
  // A job running and one held for the job and queue panels.
  InController(env, ns, {"sbatch", "-w", "cpu-01", "-o", "/dev/null", "--wrap", "sleep 600"});
  InController(env, ns, {"sbatch", "--hold", "-o", "/dev/null", "--wrap", "hostname"});
  CHECK(PollUntil(
            [&] {
              return !InController(env, ns, {"squeue", "-h", "-t", "R"}).value_or("").empty();
            },
            absl::Seconds(60), absl::Seconds(1))
            .has_value());
}

// The metric names every service serves (# TYPE lines), and promtool's verdict on each.
std::set<std::string> ServedMetrics(const TidepoolServices& services) {
  const absl::StatusOr<std::string> promtool = TestenvTool("promtool");
  REQUIRE(promtool.ok());
  std::set<std::string> served;
  for (const auto& [service, port] : services.HttpPorts()) {
    CAPTURE(service);
    absl::StatusOr<HttpResponse> metrics =
        HttpGet(absl::StrCat("http://127.0.0.1:", port, "/metrics"));
    REQUIRE(metrics.ok());
    for (absl::string_view line : absl::StrSplit(metrics->body, '\n')) {
      if (absl::ConsumePrefix(&line, "# TYPE ")) {
        served.insert(std::string(line.substr(0, line.find(' '))));
      }
    }
    const std::string file = absl::StrCat("/tmp/tidepool-metrics-", service, ".txt");
    std::ofstream(file) << metrics->body;
    absl::StatusOr<CommandResult> lint = RunCommand(
        {"/bin/sh", "-c", absl::StrCat(*promtool, " check metrics < ", file)}, absl::Seconds(30));
    INFO(lint.status());
    REQUIRE(lint.ok());
    INFO(lint->output);
    CHECK(lint->exit_code == 0);
    std::remove(file.c_str());
  }
  return served;
}

TEST_CASE("a real Prometheus scraping the services answers every dashboard panel and alert") {
  const KubernetesEnv env = RequireKubernetes();
  MustKubectl(env, {"apply", "-f", SourceRoot() + "/manifests/crds"});
  MustKubectl(env, {"wait", "--for=condition=Established", "--timeout=60s", "crd",
                    "slurmclusters.tidepool.dev", "nodesets.tidepool.dev"});
  const std::vector<PanelQuery> queries = DashboardQueries();
  REQUIRE(queries.size() > 40);
  ForEachSlurmVersion(
      env, SlurmVersions::kNewest, "metrics", [&](const std::string& tag, const std::string& ns) {
        TidepoolServices services(env, ns);
        std::map<std::string, std::string> jobs;
        for (const auto& [service, port] : services.HttpPorts()) {
          jobs[service] = absl::StrCat("127.0.0.1:", port);
        }
        PrometheusServer prometheus(jobs);
        Apply(env, ResearchClusterManifest({.ns = ns, .slurm_tag = tag, .pod_scheduler = true}));
        {
          INFO(services.Logs());
          REQUIRE(AwaitSinfo(env, ns, "batch* idle 2 cpu-[01-02]"));
          ExerciseCluster(env, ns, tag, services);
        }

        // Every query answers once Prometheus has scraped the activity (a rate needs two
        // samples; the Slurm metrics come every 15 s).
        std::map<std::string, std::string> answers;
        const auto unanswered = [&] {
          std::vector<std::string> missing;
          for (const PanelQuery& query : queries) {
            absl::StatusOr<std::vector<PrometheusSample>> samples = prometheus.Query(query.expr);
            std::string answer = samples.ok() ? "" : std::string(samples.status().message());
            bool answered = false;
            if (samples.ok()) {
              for (const PrometheusSample& sample : *samples) {
                absl::StrAppend(&answer, answer.empty() ? "" : " ", sample.labels, "=",
                                sample.value);
                answered = answered || sample.value != "NaN";
              }
            }
            answers[query.where] = answer;
            if (!answered) missing.push_back(query.where + ": " + query.expr + " -> " + answer);
          }
          return missing;
        };
        std::vector<std::string> missing;
        PollUntil(
            [&] {
              missing = unanswered();
              return missing.empty();
            },
            absl::Seconds(90), absl::Seconds(5));
        std::string report;
        for (const auto& [where, answer] : answers)
          absl::StrAppend(&report, where, ": ", answer, "\n");
        WARN("every panel and alert signal, and what Prometheus answered:\n" << report);
        INFO("no value (or only NaN):\n" << absl::StrJoin(missing, "\n"));
        CHECK(missing.empty());
        // Named as served: a renamed metric is caught even where a query falls back to 0.
        const std::set<std::string> served = ServedMetrics(services);
        for (const PanelQuery& query : queries) {
          for (const std::string& name : query.metrics) {
            CAPTURE(query.where, name);
            CHECK((name == "up" || served.contains(name)));
          }
        }

        // Every rule evaluates, and on this working cluster none fires.
        absl::StatusOr<std::string> rules = prometheus.Api("rules");
        REQUIRE(rules.ok());
        CHECK(absl::StrContains(*rules, "TidepoolSlurmUnreachable"));
        CHECK_FALSE(absl::StrContains(*rules, R"("health":"err")"));
        CHECK_FALSE(absl::StrContains(*rules, R"("health":"unknown")"));
        absl::StatusOr<std::string> alerts = prometheus.Api("alerts");
        REQUIRE(alerts.ok());
        INFO(*alerts);
        CHECK_FALSE(absl::StrContains(*alerts, R"("state":"firing")"));
      });
}

}  // namespace
}  // namespace tidepool::testing
