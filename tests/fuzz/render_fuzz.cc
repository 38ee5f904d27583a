// The renderer's validation and writers on any RenderRequest gRPC could deliver: a refusal
// or configuration files, never a crash.
#include <cstddef>
#include <cstdint>

#include "render.h"
#include "tidepool/v1/renderer.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tidepool::v1::RenderRequest request;
  if (!request.ParseFromArray(data, static_cast<int>(size))) return 0;
  (void)tidepool::renderer::Validate(request);
  (void)tidepool::renderer::Render(request);
  return 0;
}
