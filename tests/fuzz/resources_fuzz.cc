// Objects from the API server: SlurmClusters, NodeSets, Nodes and watch events are parsed
// (or refused) without crashing, whatever a client with write access stored.
#include <cstddef>
#include <cstdint>
#include <string>

#include "k8s/watch.h"
#include "tidepool/resources.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  (void)tidepool::api::KindOf(json);
  (void)tidepool::api::ParseSlurmCluster(json);
  (void)tidepool::api::ParseNodeSet(json);
  (void)tidepool::api::ParseNode(json);
  (void)tidepool::api::ParseNodeSetSlurm(json, "pod fuzz/0");
  (void)tidepool::k8s::ParseWatchEvent(json);
  return 0;
}
