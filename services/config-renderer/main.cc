#include "common/heap_tuning.h"
#include "common/service_runner.h"
#include "offline.h"
#include "render.h"
#include "renderer_service.h"
#include "tidepool/grpc_callers.h"

int main(int argc, char** argv) {
  return tidepool::common::RunService(
      argc, argv,
      {.name = "config-renderer",
       .summary = "Renders slurm.conf, gres.conf, topology.conf and cgroup.conf for Tidepool "
                  "clusters; the only producer of Slurm configuration.\n"
                  "Offline: config-renderer render [--output_dir=DIR] FILE... | "
                  "config-renderer hostlist expand|compress ...",
       .setup =
           [](tidepool::common::ServiceContext& context) {
             context.AddGrpcService(std::make_unique<tidepool::renderer::RendererService>(
                 context.metrics(), context.Authorizer(tidepool::api::ConfigRendererGrants())));
             return absl::OkStatus();
           },
       .command = tidepool::renderer::RunOfflineCommand,
       // Keeps freed heap between renders on purpose.
       .heap = tidepool::common::RetainHeap{.bytes = tidepool::renderer::kRetainedHeapBytes}});
}
