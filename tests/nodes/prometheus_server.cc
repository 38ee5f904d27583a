#include "nodes/prometheus_server.h"

#include <curl/curl.h>
#include <stdlib.h>

#include <catch2/catch_test_macros.hpp>
#include <filesystem>
#include <fstream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "support/eventually.h"
#include "support/http_get.h"
#include "support/json.h"
#include "support/ports.h"
#include "support/testenv.h"

namespace tidepool::testing {
namespace {

std::string Escaped(const std::string& text) {
  std::unique_ptr<char, decltype(&curl_free)> escaped(
      curl_easy_escape(nullptr, text.data(), static_cast<int>(text.size())), &curl_free);
  return escaped ? std::string(escaped.get()) : "";
}

std::string Config(const std::map<std::string, std::string>& jobs) {
  std::string config = absl::StrCat(
      "global: {scrape_interval: 1s, evaluation_interval: 1s}\n", "rule_files: [\"", SourceRoot(),
      "/manifests/prometheus/tidepool-alerts.yaml\"]\n", "scrape_configs:\n");
  for (const auto& [job, target] : jobs) {
    absl::StrAppend(&config, "  - job_name: ", job, "\n    static_configs: [{targets: [\"", target,
                    "\"]}]\n");
  }
  return config;
}

// Prometheus's whole answer to an API call, when its "status" is "success".
absl::StatusOr<rapidjson::Document> Answer(const absl::StatusOr<HttpResponse>& response) {
  if (!response.ok()) return response.status();
  absl::StatusOr<rapidjson::Document> json = ParseJson(response->body);
  if (!json.ok()) return json.status();
  if (StringAt(*json, "status") != "success") {
    return absl::FailedPreconditionError(
        absl::StrCat("Prometheus: ", StringAt(*json, "errorType"), ": ", StringAt(*json, "error")));
  }
  if (FindPath(*json, "data") == nullptr) {
    return absl::InternalError("Prometheus: no data in " + response->body);
  }
  return json;
}

}  // namespace

PrometheusServer::PrometheusServer(const std::map<std::string, std::string>& jobs) {
  absl::StatusOr<std::string> binary = TestenvTool("prometheus");
  INFO(binary.status());
  REQUIRE(binary.ok());
  char dir[] = "/tmp/tidepool-prometheus-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  dir_ = dir;
  std::ofstream(dir_ + "/prometheus.yml") << Config(jobs);
  port_ = FreeLoopbackPort().value();
  absl::StatusOr<ChildProcess> process = ChildProcess::Spawn(
      *binary,
      {"--config.file=" + dir_ + "/prometheus.yml", "--storage.tsdb.path=" + dir_ + "/data",
       absl::StrCat("--web.listen-address=127.0.0.1:", port_), "--log.level=warn"});
  REQUIRE(process.ok());
  process_.emplace(*std::move(process));
  const bool ready = PollUntil(
                         [&] {
                           auto response =
                               HttpGet(absl::StrCat("http://127.0.0.1:", port_, "/-/ready"));
                           return response.ok() && response->status == 200;
                         },
                         absl::Seconds(60), absl::Milliseconds(200))
                         .has_value();
  INFO(Output());
  REQUIRE(ready);
}

PrometheusServer::~PrometheusServer() {
  process_.reset();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

absl::StatusOr<std::string> PrometheusServer::Api(const std::string& path) const {
  absl::StatusOr<rapidjson::Document> answer =
      Answer(HttpGet(absl::StrCat("http://127.0.0.1:", port_, "/api/v1/", path)));
  if (!answer.ok()) return answer.status();
  return ToJson(*FindPath(*answer, "data"));
}

absl::StatusOr<std::vector<PrometheusSample>> PrometheusServer::Query(
    const std::string& expr) const {
  absl::StatusOr<rapidjson::Document> answer = Answer(
      HttpGet(absl::StrCat("http://127.0.0.1:", port_, "/api/v1/query?query=", Escaped(expr))));
  if (!answer.ok()) return answer.status();
  const rapidjson::Value* result = FindPath(*answer, "data.result");
  if (result == nullptr || !result->IsArray()) {
    return absl::InternalError("Prometheus: no result array in " + ToJson(*answer));
  }
  std::vector<PrometheusSample> samples;
  for (const rapidjson::Value& series : result->GetArray()) {
    const rapidjson::Value* metric = FindPath(series, "metric");
    const rapidjson::Value* value = FindPath(series, "value.1");
    samples.push_back({metric != nullptr ? ToJson(*metric) : "{}",
                       value != nullptr && value->IsString() ? value->GetString() : ""});
  }
  return samples;
}

}  // namespace tidepool::testing
