// Hostlist expressions (NodeSet names, slurmrestd's node lists): expand, count and compress
// agree, and nothing crashes or runs away.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "slurm/hostlist/hostlist.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string expression(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<std::vector<std::string>> hosts =
      tidepool::slurm::ExpandHostlist(expression, {.max_hosts = 4096});
  const absl::StatusOr<uint64_t> count = tidepool::slurm::CountHosts(expression);
  if (!hosts.ok()) return 0;
  // Counting without expanding must agree with expanding.
  if (!count.ok() || *count != hosts->size()) std::abort();
  const absl::StatusOr<std::string> compressed = tidepool::slurm::CompressHostNames(*hosts);
  if (!compressed.ok()) return 0;
  // A compressed list names as many hosts as it was made from.
  const absl::StatusOr<uint64_t> recount = tidepool::slurm::CountHosts(*compressed);
  if (!recount.ok() || *recount != hosts->size()) std::abort();
  (void)tidepool::slurm::RecompressHostlist(expression);
  return 0;
}
