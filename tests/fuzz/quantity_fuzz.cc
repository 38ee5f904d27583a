// Kubernetes resource quantities (Node allocatable, pod requests): parsed without overflow.
#include <cstddef>
#include <cstdint>
#include <string>

#include "k8s/quantity.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)tidepool::k8s::QuantityMilliValue(text);
  (void)tidepool::k8s::QuantityValue(text);
  return 0;
}
