#pragma once
// A real Prometheus (tools/testenv/k8s/build prometheus) on loopback for a test: it scrapes
// the given targets every second and evaluates manifests/prometheus/tidepool-alerts.yaml;
// stopped and its data removed when this goes.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "support/child_process.h"

namespace tidepool::testing {

// One series of an instant query's answer: its labels as {a="b"} text and its value.
struct PrometheusSample {
  std::string labels;
  std::string value;  // as Prometheus writes it: "1", "0.25", "NaN"
};

class PrometheusServer {
 public:
  // jobs: scrape job name -> host:port serving /metrics.
  explicit PrometheusServer(const std::map<std::string, std::string>& jobs);
  ~PrometheusServer();
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  // An instant query now; an error names Prometheus's own.
  absl::StatusOr<std::vector<PrometheusSample>> Query(const std::string& expr) const;
  // GET /api/v1/<path> (e.g. "rules", "alerts"): the "data" member as JSON text.
  absl::StatusOr<std::string> Api(const std::string& path) const;
  std::string Output() const { return process_.has_value() ? process_->Output() : ""; }

 private:
  std::string dir_;
  uint16_t port_ = 0;
  std::optional<ChildProcess> process_;
};

}  // namespace tidepool::testing
