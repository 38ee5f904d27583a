// manifests/dashboards and manifests/prometheus are what tools/dashboards/generate writes;
// the real promtool accepts the rules and passes their unit tests (each alert fires after
// its condition held for its `for`, not before, not on a healthy cluster); every dashboard
// has what Grafana needs to show it. Whether the queries answer on a running system is the
// nodes test metrics_test.cc.
#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "support/json.h"
#include "support/testenv.h"
#include "yaml-cpp/yaml.h"

namespace tidepool::testing {
namespace {

namespace fs = std::filesystem;

CommandResult Run(const std::vector<std::string>& argv) {
  absl::StatusOr<CommandResult> result = RunCommand(argv, absl::Minutes(2));
  REQUIRE(result.ok());
  return *result;
}

std::string Promtool() {
  absl::StatusOr<std::string> promtool = TestenvTool("promtool");
  INFO(promtool.status());
  REQUIRE(promtool.ok());
  return *promtool;
}

TEST_CASE("the dashboards and alerts on disk are what tools/dashboards/generate writes") {
  const CommandResult check = Run({SourceRoot() + "/tools/dashboards/generate", "--check"});
  INFO(check.output);
  CHECK(check.exit_code == 0);
}

TEST_CASE("promtool accepts the alerts and their unit tests pass") {
  const std::string promtool = Promtool();
  const std::string rules = SourceRoot() + "/manifests/prometheus/tidepool-alerts.yaml";
  const CommandResult checked = Run({promtool, "check", "rules", rules});
  INFO(checked.output);
  CHECK(checked.exit_code == 0);
  const CommandResult tested = Run(
      {promtool, "test", "rules", SourceRoot() + "/tests/integration/monitoring/alerts_test.yaml"});
  INFO(tested.output);
  CHECK(tested.exit_code == 0);

  // What an operator is paged with: a severity, a summary and what to do, after a while.
  std::set<std::string> alerts;
  for (const YAML::Node& rule : YAML::LoadFile(rules)["groups"][0]["rules"]) {
    const std::string name = rule["alert"].as<std::string>("");
    CAPTURE(name);
    alerts.insert(name);
    CHECK(rule["for"].IsDefined());
    const std::string severity = rule["labels"]["severity"].as<std::string>("");
    CHECK((severity == "critical" || severity == "warning"));
    CHECK(!rule["annotations"]["summary"].as<std::string>("").empty());
    CHECK(rule["annotations"]["description"].as<std::string>("").size() > 40);
  }
  CHECK(alerts == std::set<std::string>{"TidepoolSlurmUnreachable", "TidepoolTargetDown",
                                        "TidepoolControllerNotLeading", "TidepoolDrainSyncFailing",
                                        "TidepoolReconfigureFailing", "TidepoolReconcileFailing",
                                        "TidepoolSlurmSyncerAbsent",
                                        "TidepoolGrpcCertificateExpiresSoon"});
}

TEST_CASE(
    "every dashboard has a unique uid, takes its data source from a variable, and shows "
    "queries on a grid") {
  std::set<std::string> uids;
  for (const auto& entry : fs::directory_iterator(SourceRoot() + "/manifests/dashboards")) {
    CAPTURE(entry.path().filename().string());
    std::ifstream file(entry.path());
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    absl::StatusOr<rapidjson::Document> board = ParseJson(text);
    REQUIRE(board.ok());
    CHECK(uids.insert(StringAt(*board, "uid")).second);
    CHECK(StringAt(*board, "templating.list.0.type") == "datasource");
    const rapidjson::Value* panels = FindPath(*board, "panels");
    REQUIRE((panels != nullptr && panels->IsArray() && !panels->Empty()));
    std::set<std::pair<int, int>> cells;  // (y, x) of each panel's corner
    for (const rapidjson::Value& panel : panels->GetArray()) {
      CAPTURE(StringAt(panel, "title"));
      CHECK(StringAt(panel, "datasource.uid") == "${datasource}");
      const rapidjson::Value* targets = FindPath(panel, "targets");
      REQUIRE((targets != nullptr && targets->IsArray() && !targets->Empty()));
      for (const rapidjson::Value& target : targets->GetArray()) {
        CHECK(absl::StrContains(StringAt(target, "expr"), "tidepool_"));
      }
      const rapidjson::Value* x = FindPath(panel, "gridPos.x");
      const rapidjson::Value* y = FindPath(panel, "gridPos.y");
      REQUIRE((x != nullptr && y != nullptr));
      CHECK(cells.insert({y->GetInt(), x->GetInt()}).second);
    }
  }
  CHECK(uids.size() == 7);
}

}  // namespace
}  // namespace tidepool::testing
