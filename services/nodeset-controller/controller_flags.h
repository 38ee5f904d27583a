#pragma once

// nodeset-controller's own flags (the common ones are in common/service_flags.h),
// validated into the options the controller is built from.

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

ABSL_DECLARE_FLAG(std::string, kubeconfig);
ABSL_DECLARE_FLAG(double, kube_api_qps);
ABSL_DECLARE_FLAG(int32_t, kube_api_burst);
ABSL_DECLARE_FLAG(std::string, syncer_address);
ABSL_DECLARE_FLAG(bool, leader_elect);
ABSL_DECLARE_FLAG(std::string, leader_election_namespace);
ABSL_DECLARE_FLAG(std::string, leader_election_id);
ABSL_DECLARE_FLAG(std::string, watch_namespace);
ABSL_DECLARE_FLAG(int32_t, workers);
ABSL_DECLARE_FLAG(absl::Duration, wait_requeue);

namespace tidepool::nodeset {

struct ControllerOptions {
  std::string kubeconfig;  // "" = in-cluster
  double qps = 20;
  int burst = 40;
  std::string syncer_address;
  bool leader_elect = true;
  std::string lease_namespace;
  std::string lease_name;
  std::string watch_namespace;  // "" = all namespaces
  int workers = 2;
  absl::Duration wait_requeue;
};

// The error names the flag and says what is accepted.
absl::StatusOr<ControllerOptions> ValidateControllerOptions(ControllerOptions options);
ControllerOptions ReadControllerFlags();

}  // namespace tidepool::nodeset
