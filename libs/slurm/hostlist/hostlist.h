#pragma once

// Slurm host expressions ("hostlists"): gpu-[01-08,10], rack[1-2]-node[01-02], n[1-3]-ib.
//
// Expansion and compression follow Slurm's src/common/hostlist.c for a one-dimensional
// cluster (the default), so that what Tidepool writes into slurm.conf means to slurmctld
// exactly what it means to us:
//  - ExpandHostlist() yields the names in the order `scontrol show hostnames` prints them,
//    duplicates included.
//  - HostlistBuilder / CompressHostNames() produce what `scontrol show hostlistsorted`
//    (HostlistOrder::kSorted), hostlist_uniq() (kSortedUnique) or `scontrol show hostlist`
//    (kAsGiven) print for the same names.
//
// Where Slurm accepts input only by accident (a stray ']', "n[1-]", "n[ 2]" parsed by
// strtoul as width 2, an empty expression), these functions reject it instead, with an
// absl::InvalidArgumentError that names the offending part.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tidepool::slurm {

// Guard against expressions such as "a[0-60000]b[0-60000]" that would exhaust memory.
inline constexpr uint64_t kDefaultMaxHosts = 1'000'000;

// Slurm's own limits (hostlist.h): MAX_RANGE hosts in one lo-hi range, MAX_PREFIX_CNT values
// in a bracket that is not the last one of a name, MAX_RANGES ranges in one bracket. Slurm
// rejects (or aborts on) expressions beyond them, so we reject them too.
inline constexpr uint64_t kSlurmMaxHostsPerRange = uint64_t{64} * 1024;
inline constexpr uint64_t kSlurmMaxPrefixValues = uint64_t{64} * 1024;
inline constexpr uint64_t kSlurmMaxRangesPerBracket = uint64_t{256} * 1024;

struct ExpandOptions {
  // Expressions naming more hosts fail before anything is allocated.
  uint64_t max_hosts = kDefaultMaxHosts;
};

// Returns every host the expression names, in Slurm's order, duplicates kept.
// Elements are separated by ',', ' ', '\t' or '\n' outside brackets. Zero padding comes from
// the width of a range's low bound ("n[08-10]" is n08 n09 n10, "n[8-10]" is n8 n9 n10). With
// several brackets in one name, the last bracket varies fastest, then the first, second, ...
// (so "a[1-2]b[3-4]" is a1b3 a1b4 a2b3 a2b4).
absl::StatusOr<std::vector<std::string>> ExpandHostlist(absl::string_view expression,
                                                        const ExpandOptions& options = {});

// The number of hosts ExpandHostlist() would return, computed without expanding.
absl::StatusOr<uint64_t> CountHosts(absl::string_view expression);

enum class HostlistOrder {
  // `scontrol show hostlistsorted` (hostlist_sort): sorted by prefix in natural order, then
  // number; duplicates are kept ("n[1,1]").
  kSorted,
  // hostlist_uniq() then the ranged string: sorted as above, then neighbouring ranges that
  // overlap or repeat a host are joined. Like Slurm, a repeat survives only when mixed zero
  // padding sorts another range between the two copies ("n[9-12,02-05,11-12]").
  kSortedUnique,
  // `scontrol show hostlist`: the order given; a host joins the previous range only when it
  // directly follows it ("n[3,1-2]" stays as it is).
  kAsGiven,
};

struct CompressOptions {
  HostlistOrder order = HostlistOrder::kSorted;
  // Limit for expressions passed to HostlistBuilder::AddHostlist().
  uint64_t max_hosts = kDefaultMaxHosts;
};

namespace hostlist_internal {

// One of Slurm's hostrange_t: hosts prefix<lo>..prefix<hi> printed with `width` digits, or
// a single host with no numeric suffix (then prefix is the whole name).
struct HostRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  uint32_t prefix_id = 0;
  int32_t width = 0;
  bool single = false;
};

}  // namespace hostlist_internal

// Collects host names (or expressions) and renders them as one compressed hostlist.
// Adding is O(1) per host; Build() is O(r log r) in the number of ranges r.
class HostlistBuilder {
 public:
  explicit HostlistBuilder(const CompressOptions& options = {});

  // Adds one host name. Names may not be empty or contain separators (',', whitespace),
  // brackets or control characters.
  absl::Status AddHost(absl::string_view host_name);

  // Adds every host of a host expression, keeping its ranges as Slurm's hostlist_push()
  // does: "n1[0-3]" stays under the prefix "n1" and prints as n1[0-3], not n[10-13].
  absl::Status AddHostlist(absl::string_view expression);

  // Makes room for `host_count` more hosts, so adding them does not reallocate.
  void Reserve(size_t host_count);

  uint64_t host_count() const { return host_count_; }
  bool empty() const { return host_count_ == 0; }

  // The compressed expression, e.g. "gpu-[01-08,10],login"; "" when nothing was added.
  std::string Build() const;

  void Clear();

 private:
  uint32_t InternPrefix(absl::string_view prefix);
  void PushRange(const hostlist_internal::HostRange& range);
  void PushHostName(absl::string_view host_name);
  std::string Render(const std::vector<hostlist_internal::HostRange>& ranges) const;

  CompressOptions options_;
  std::vector<std::string> prefixes_;
  absl::flat_hash_map<std::string, uint32_t> prefix_ids_;
  uint32_t last_prefix_id_ = 0;
  std::vector<hostlist_internal::HostRange> ranges_;
  uint64_t host_count_ = 0;
};

// Compresses host names; see HostlistOrder for the orders Slurm knows.
absl::StatusOr<std::string> CompressHostNames(absl::Span<const std::string> host_names,
                                              const CompressOptions& options = {});
absl::StatusOr<std::string> CompressHostNames(absl::Span<const absl::string_view> host_names,
                                              const CompressOptions& options = {});

// Re-renders an expression as `scontrol show hostlist[sorted] EXPRESSION` does.
absl::StatusOr<std::string> RecompressHostlist(absl::string_view expression,
                                               const CompressOptions& options = {});

}  // namespace tidepool::slurm
