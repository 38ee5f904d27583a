#include "tidepool/grpc_callers.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace tidepool::api {
namespace {

common::MethodGrant Grant(const char* service, const char* method,
                          std::vector<std::string> callers) {
  return {.method = absl::StrCat("/tidepool.v1.", service, "/", method),
          .callers = std::move(callers)};
}

}  // namespace

std::vector<common::MethodGrant> SlurmSyncerGrants() {
  constexpr char kSyncer[] = "SlurmSyncer";
  return {
      Grant(kSyncer, "Ping",
            {kNodesetControllerIdentity, kClusterControllerIdentity, kPodSchedulerIdentity}),
      Grant(kSyncer, "GetNodes", {kNodesetControllerIdentity, kClusterControllerIdentity}),
      Grant(kSyncer, "WatchNodes", {kNodesetControllerIdentity}),
      Grant(kSyncer, "UpdateNode", {kNodesetControllerIdentity}),
      Grant(kSyncer, "Reconfigure", {kClusterControllerIdentity}),
      Grant(kSyncer, "SubmitJob", {kPodSchedulerIdentity}),
      Grant(kSyncer, "CancelJob", {kPodSchedulerIdentity}),
      Grant(kSyncer, "GetJob", {kPodSchedulerIdentity}),
      Grant(kSyncer, "WatchJobs", {kPodSchedulerIdentity}),
  };
}

std::vector<common::MethodGrant> ConfigRendererGrants() {
  constexpr char kRenderer[] = "ConfigRenderer";
  return {
      Grant(kRenderer, "Render", {kClusterControllerIdentity}),
      Grant(kRenderer, "Validate", {kClusterControllerIdentity}),
  };
}

}  // namespace tidepool::api
