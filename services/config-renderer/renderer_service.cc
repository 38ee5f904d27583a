#include "renderer_service.h"

#include "absl/time/clock.h"
#include "common/log.h"
#include "common/metrics.h"
#include "render.h"

namespace tidepool::renderer {
namespace {

constexpr char kService[] = "config-renderer";
constexpr char kRenderMethod[] = "/tidepool.v1.ConfigRenderer/Render";
constexpr char kValidateMethod[] = "/tidepool.v1.ConfigRenderer/Validate";

grpc::Status ToGrpc(const absl::Status& status) {
  if (status.code() == absl::StatusCode::kInvalidArgument) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(status.message()));
  }
  return grpc::Status(grpc::StatusCode::INTERNAL, std::string(status.message()));
}

const char* Outcome(const absl::Status& status) {
  if (status.ok()) return "ok";
  return status.code() == absl::StatusCode::kInvalidArgument ? "invalid" : "error";
}

std::string ClusterKey(const tidepool::v1::RenderRequest& request) {
  return request.cluster().metadata().namespace_() + "/" + request.cluster().metadata().name();
}

}  // namespace

RendererService::RendererService(prometheus::Registry& registry,
                                 common::MethodAuthorizer authorizer)
    : authorizer_(std::move(authorizer)),
      requests_(prometheus::BuildCounter()
                    .Name(common::MetricName(kService, "requests_total"))
                    .Help("Render and Validate calls by outcome (ok, invalid, error)")
                    .Register(registry)),
      render_seconds_(prometheus::BuildHistogram()
                          .Name(common::MetricName(kService, "render_seconds"))
                          .Help("Time to render all files of one request")
                          .Register(registry)
                          .Add({}, prometheus::Histogram::BucketBoundaries{
                                       0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5})) {
  common::AddZeroSeries(
      requests_, {{"method", {"Render", "Validate"}}, {"outcome", {"ok", "invalid", "error"}}});
}

grpc::Status RendererService::Render(grpc::ServerContext* context,
                                     const tidepool::v1::RenderRequest* request,
                                     tidepool::v1::RenderResponse* response) {
  if (grpc::Status denied = authorizer_.Check(*context, kRenderMethod); !denied.ok()) {
    return denied;
  }
  const absl::Time start = absl::Now();
  absl::StatusOr<tidepool::v1::RenderResponse> rendered = renderer::Render(*request);
  render_seconds_.Observe(absl::ToDoubleSeconds(absl::Now() - start));
  requests_.Add({{"method", "Render"}, {"outcome", Outcome(rendered.status())}}).Increment();
  if (!rendered.ok()) {
    common::LogWarn("render_rejected",
                    {{"cluster", ClusterKey(*request)}, {"error", rendered.status().message()}});
    return ToGrpc(rendered.status());
  }
  common::LogDebug("rendered", {{"cluster", ClusterKey(*request)},
                                {"hash", rendered->config_hash()},
                                {"nodes", rendered->nodes()}});
  *response = std::move(*rendered);
  return grpc::Status::OK;
}

grpc::Status RendererService::Validate(grpc::ServerContext* context,
                                       const tidepool::v1::RenderRequest* request,
                                       tidepool::v1::ValidateResponse* response) {
  if (grpc::Status denied = authorizer_.Check(*context, kValidateMethod); !denied.ok()) {
    return denied;
  }
  absl::StatusOr<tidepool::v1::ValidateResponse> validated = renderer::Validate(*request);
  requests_.Add({{"method", "Validate"}, {"outcome", Outcome(validated.status())}}).Increment();
  if (!validated.ok()) return ToGrpc(validated.status());
  *response = std::move(*validated);
  return grpc::Status::OK;
}

}  // namespace tidepool::renderer
