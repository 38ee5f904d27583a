#pragma once

#include "common/grpc_authz.h"
#include "prometheus/counter.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "tidepool/v1/renderer.grpc.pb.h"

namespace tidepool::renderer {

// tidepool.v1.ConfigRenderer over gRPC, with metrics:
//   tidepool_config_renderer_requests_total{method, outcome}
//   tidepool_config_renderer_render_seconds
class RendererService final : public tidepool::v1::ConfigRenderer::Service {
 public:
  // `authorizer` admits callers per method (cluster-controller, with mutual TLS).
  RendererService(prometheus::Registry& registry, common::MethodAuthorizer authorizer);

  grpc::Status Render(grpc::ServerContext* context, const tidepool::v1::RenderRequest* request,
                      tidepool::v1::RenderResponse* response) override;
  grpc::Status Validate(grpc::ServerContext* context, const tidepool::v1::RenderRequest* request,
                        tidepool::v1::ValidateResponse* response) override;

 private:
  const common::MethodAuthorizer authorizer_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Histogram& render_seconds_;
};

}  // namespace tidepool::renderer
