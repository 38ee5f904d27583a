#include "tidepool/grpc_callers.h"

#include <catch2/catch_test_macros.hpp>
#include <set>
#include <string>

#include "google/protobuf/descriptor.h"
#include "tidepool/v1/renderer.grpc.pb.h"
#include "tidepool/v1/syncer.grpc.pb.h"

namespace tidepool::api {
namespace {

// `file` is a message of the service's .proto: naming it links the descriptors in.
std::set<std::string> MethodsOf(const google::protobuf::FileDescriptor* file,
                                const char* service_full_name) {
  const google::protobuf::ServiceDescriptor* service =
      file->pool()->FindServiceByName(service_full_name);
  REQUIRE(service != nullptr);
  std::set<std::string> methods;
  for (int i = 0; i < service->method_count(); ++i) {
    methods.insert("/" + std::string(service_full_name) + "/" + service->method(i)->name());
  }
  return methods;
}

std::set<std::string> Granted(const std::vector<common::MethodGrant>& grants) {
  std::set<std::string> methods;
  for (const common::MethodGrant& grant : grants) methods.insert(grant.method);
  return methods;
}

std::set<std::string> CallersOf(const std::vector<common::MethodGrant>& grants,
                                const std::string& method) {
  for (const common::MethodGrant& grant : grants) {
    if (grant.method == method) return {grant.callers.begin(), grant.callers.end()};
  }
  return {};
}

// A grant naming no method would leave the method it meant denied; a method without a
// grant is unreachable with TLS. Both would show only in a deployment.
TEST_CASE("Every gRPC method of the syncer and the renderer has exactly its grant") {
  CHECK(Granted(SlurmSyncerGrants()) ==
        MethodsOf(v1::PingRequest::descriptor()->file(), v1::SlurmSyncer::service_full_name()));
  CHECK(Granted(ConfigRendererGrants()) == MethodsOf(v1::RenderRequest::descriptor()->file(),
                                                     v1::ConfigRenderer::service_full_name()));
}

TEST_CASE("Only nodeset-controller drains, only the pod-scheduler runs jobs") {
  const std::vector<common::MethodGrant> syncer = SlurmSyncerGrants();
  const std::string prefix = "/tidepool.v1.SlurmSyncer/";
  CHECK(CallersOf(syncer, prefix + "UpdateNode") == std::set<std::string>{"nodeset-controller"});
  for (const char* job_method : {"SubmitJob", "CancelJob", "GetJob", "WatchJobs"}) {
    CHECK(CallersOf(syncer, prefix + job_method) == std::set<std::string>{"pod-scheduler"});
  }
  CHECK(CallersOf(syncer, prefix + "Reconfigure") == std::set<std::string>{"cluster-controller"});
  CHECK(CallersOf(ConfigRendererGrants(), "/tidepool.v1.ConfigRenderer/Render") ==
        std::set<std::string>{"cluster-controller"});
}

}  // namespace
}  // namespace tidepool::api
