// slurmrestd replies: every parser, as each data_parser version Tidepool speaks, takes any
// body without crashing (a compromised or buggy slurmrestd must not take the syncer down).
#include <cstddef>
#include <cstdint>
#include <string>

#include "slurm/rest/json_mapping.h"

namespace {

using tidepool::slurm::rest::CallContext;

void ParseAll(const std::string& body, const std::string& version) {
  namespace rest = tidepool::slurm::rest;
  const CallContext call{.method = "GET", .path = "/slurm/" + version + "/x", .http_status = 200};
  (void)rest::ParseNodesReply(absl::string_view(body), call);
  (void)rest::ParseJobsReply(body, call);
  (void)rest::ParseJobStatesReply(body, call);
  (void)rest::ParseSubmitReply(body, call);
  (void)rest::ParsePartitionsReply(body, call);
  (void)rest::ParseReservationsReply(body, call);
  (void)rest::ParsePingReply(body, call);
  (void)rest::ParseDiagReply(body, call);
  (void)rest::ParseEmptyReply(body, call);
  (void)rest::ParseSignalReply(body, call);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  for (const char* version : {"v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"}) ParseAll(body, version);
  (void)tidepool::slurm::rest::ParseOpenApiVersions(
      body, {.method = "GET", .path = "/openapi/v3", .http_status = 200});
  return 0;
}
