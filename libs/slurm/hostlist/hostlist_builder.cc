// HostlistBuilder: the parts of Slurm's hostlist.c that turn pushed hosts into a ranged
// string (hostlist_push_range, hostlist_sort, hostlist_coalesce, hostlist_collapse,
// hostlist_uniq, hostlist_ranged_string), reimplemented over a flat vector of ranges.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <numeric>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "slurm/hostlist/host_expression.h"
#include "slurm/hostlist/hostlist.h"
#include "slurm/hostlist/natural_compare.h"

namespace tidepool::slurm {

using hostlist_internal::AppendPaddedNumber;
using hostlist_internal::ForEachPrefix;
using hostlist_internal::HostPattern;
using hostlist_internal::HostRange;
using hostlist_internal::NumberRange;

namespace {

// Decimal digits of `value`, without division: this runs in every sort comparison.
int DigitCount(uint64_t value) {
  static constexpr uint64_t kPowersOfTen[] = {1ULL,
                                              10ULL,
                                              100ULL,
                                              1000ULL,
                                              10000ULL,
                                              100000ULL,
                                              1000000ULL,
                                              10000000ULL,
                                              100000000ULL,
                                              1000000000ULL,
                                              10000000000ULL,
                                              100000000000ULL,
                                              1000000000000ULL,
                                              10000000000000ULL,
                                              100000000000000ULL,
                                              1000000000000000ULL,
                                              10000000000000000ULL,
                                              100000000000000000ULL,
                                              1000000000000000000ULL,
                                              10000000000000000000ULL};
  // log10(2) ~ 1233/4096 turns the bit length into a digit count that may be one short.
  const int estimate = (std::bit_width(value) * 1233) >> 12;
  return estimate + (value >= kPowersOfTen[estimate] ? 1 : 0);
}

// Slurm's _width_equiv() without its side effect: whether numbers n and m, written with
// widths wn and wm, can share one zero-padding width. True when the widths are equal, when
// neither number is zero padded ("9" and "10"), or when one is padded to W and the other has
// at least W digits anyway ("09" and "100"). Slurm also rewrites one of the widths to the
// other; that never changes how either range prints, so it is left out here.
bool WidthsCompatible(uint64_t n, int wn, uint64_t m, int wm) {
  if (wn == wm) return true;
  const auto padding = [](uint64_t value, int width) {
    const int digits = DigitCount(value);
    return width > digits ? width - digits : 0;
  };
  return padding(n, wn) == padding(n, wm) || padding(m, wm) == padding(m, wn);
}

uint64_t HostsIn(const HostRange& range) { return range.single ? 1 : range.hi - range.lo + 1; }

// Slurm's hostrange_within_range(): ranges printed inside one pair of brackets.
bool SharePrefixAndBrackets(const HostRange& a, const HostRange& b) {
  return a.prefix_id == b.prefix_id && !a.single && !b.single;
}

// Whether `next` continues `previous` directly (Slurm: prev->hi == next->lo - 1, same
// prefix, compatible widths). Single hosts never continue anything.
bool Continues(const HostRange& previous, const HostRange& next) {
  return SharePrefixAndBrackets(previous, next) && previous.hi + 1 == next.lo &&
         WidthsCompatible(previous.lo, previous.width, next.lo, next.width);
}

// glibc's qsort() is a top-down merge sort (msort.c: the first half gets n/2 elements, ties
// keep the left element). Slurm sorts with qsort(); reproducing the algorithm keeps equal
// ranges in Slurm's order, and unlike std::sort it stays memory safe if a comparator is not
// a strict weak order.
template <typename T, typename Compare>
void MergeSortLikeGlibc(T* items, size_t count, T* scratch, const Compare& compare) {
  if (count <= 1) return;
  size_t left_count = count / 2;
  size_t right_count = count - left_count;
  T* left = items;
  T* right = items + left_count;
  MergeSortLikeGlibc(left, left_count, scratch, compare);
  MergeSortLikeGlibc(right, right_count, scratch, compare);
  T* out = scratch;
  while (left_count > 0 && right_count > 0) {
    if (compare(*left, *right) <= 0) {
      *out++ = *left++;
      --left_count;
    } else {
      *out++ = *right++;
      --right_count;
    }
  }
  out = std::copy(left, left + left_count, out);
  std::copy(scratch, out, items);
}

template <typename T, typename Compare>
void MergeSortLikeGlibc(std::vector<T>& items, const Compare& compare) {
  std::vector<T> scratch(items.size());
  MergeSortLikeGlibc(items.data(), items.size(), scratch.data(), compare);
}

// Slurm's hostrange_cmp(), given each prefix's position in natural order.
int CompareLikeSlurm(const HostRange& a, const HostRange& b,
                     const std::vector<uint32_t>& prefix_rank) {
  if (a.prefix_id != b.prefix_id)
    return prefix_rank[a.prefix_id] < prefix_rank[b.prefix_id] ? -1 : 1;
  // Same text: a host without numeric suffix sorts before numbered hosts of that prefix.
  if (a.single != b.single) return a.single ? -1 : 1;
  if (!WidthsCompatible(a.lo, a.width, b.lo, b.width)) return a.width - b.width;
  // Slurm returns `h1->lo - h2->lo` truncated to an int, which misorders numbers 2^31 or
  // more apart; every such misordered pair then overlaps and makes hostlist_coalesce() drop
  // hosts, so there is no correct output of Slurm's to match and we compare properly.
  return a.lo < b.lo ? -1 : (a.lo > b.lo ? 1 : 0);
}

// Slurm's hostrange_intersect(): the hosts `earlier` and `later` (sorted, in that order)
// have in common, as a range printed like `earlier`.
std::optional<HostRange> Intersection(const HostRange& earlier, const HostRange& later) {
  if (earlier.single || later.single) return std::nullopt;
  if (earlier.hi > later.lo && earlier.prefix_id == later.prefix_id &&
      WidthsCompatible(earlier.lo, earlier.width, later.lo, later.width)) {
    HostRange common = earlier;
    common.lo = later.lo;
    common.hi = std::min(later.hi, earlier.hi);
    return common;
  }
  return std::nullopt;
}

// Slurm's hostlist_coalesce() on a sorted list: where two neighbours overlap, the overlap is
// cut into single-number ranges placed between them, so every host stays (duplicates too)
// and the later collapse step can rejoin what is consecutive. Slurm rescans from the end
// after each split; only the pair after the split can have changed, so resuming there gives
// the same result in linear time. A doubly linked list keeps the insertions O(1).
std::vector<HostRange> SplitOverlaps(std::vector<HostRange> sorted) {
  constexpr int32_t kNone = -1;
  std::vector<HostRange> nodes = std::move(sorted);
  std::vector<int32_t> previous(nodes.size());
  std::vector<int32_t> next(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    previous[i] = static_cast<int32_t>(i) - 1;
    next[i] = i + 1 < nodes.size() ? static_cast<int32_t>(i + 1) : kNone;
  }
  const auto insert_before = [&](int32_t position, const HostRange& range) {
    const auto id = static_cast<int32_t>(nodes.size());
    nodes.push_back(range);
    previous.push_back(previous[position]);
    next.push_back(position);
    next[previous[position]] = id;
    previous[position] = id;
  };

  int32_t later_id = static_cast<int32_t>(nodes.size()) - 1;
  while (later_id != kNone && previous[later_id] != kNone) {
    const int32_t earlier_id = previous[later_id];
    const std::optional<HostRange> common = Intersection(nodes[earlier_id], nodes[later_id]);
    // A pair that only became width-compatible after an earlier split (n[9-12] cut down to
    // n[12], now compatible with a padded n[03-19] that sorted after it) can overlap with
    // the later range starting first. Slurm then empties the earlier range, deletes the
    // wrong one and loses hosts; we leave such a pair as it is and keep every host.
    if (!common.has_value() || common->lo < nodes[earlier_id].lo) {
      later_id = earlier_id;
      continue;
    }
    if (common->hi < nodes[earlier_id].hi) nodes[later_id].hi = nodes[earlier_id].hi;
    nodes[earlier_id].hi = common->lo;
    nodes[later_id].lo = common->hi;
    const uint64_t earlier_hi = nodes[earlier_id].hi;
    const uint64_t later_lo = nodes[later_id].lo;
    for (uint64_t value = common->lo;; ++value) {
      HostRange one = *common;
      one.lo = one.hi = value;
      if (value > earlier_hi) insert_before(later_id, one);
      if (value < later_lo) insert_before(later_id, one);
      if (value == common->hi) break;
    }
    if (next[later_id] != kNone) later_id = next[later_id];
  }

  std::vector<HostRange> result;
  result.reserve(nodes.size());
  int32_t head = later_id;
  while (previous[head] != kNone) head = previous[head];
  for (int32_t id = head; id != kNone; id = next[id]) result.push_back(nodes[id]);
  return result;
}

// Slurm's hostlist_collapse(): joins neighbours whose numbers continue each other.
// `range_at(i)` yields the i-th of `count` sorted ranges.
template <typename RangeAt>
std::vector<HostRange> JoinConsecutive(size_t count, const RangeAt& range_at) {
  std::vector<HostRange> joined;
  joined.reserve(count);  // untouched pages of the reservation cost nothing
  for (size_t i = 0; i < count; ++i) {
    const HostRange& range = range_at(i);
    if (!joined.empty() && Continues(joined.back(), range)) {
      joined.back().hi = range.hi;
    } else {
      joined.push_back(range);
    }
  }
  return joined;
}

// Slurm's hostlist_uniq() after sorting: hostrange_join() merges neighbours that continue
// or overlap each other and drops repeated hosts.
template <typename RangeAt>
std::vector<HostRange> JoinAndDropDuplicates(size_t count, const RangeAt& range_at) {
  std::vector<HostRange> unique;
  unique.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    const HostRange& range = range_at(i);
    if (!unique.empty()) {
      HostRange& last = unique.back();
      if (last.prefix_id == range.prefix_id && last.single == range.single &&
          WidthsCompatible(last.lo, last.width, range.lo, range.width)) {
        if (last.single) continue;  // the same name again
        if (last.hi + 1 == range.lo || last.hi >= range.lo) {
          last.hi = std::max(last.hi, range.hi);
          continue;
        }
      }
    }
    unique.push_back(range);
  }
  return unique;
}

}  // namespace

HostlistBuilder::HostlistBuilder(const CompressOptions& options) : options_(options) {}

absl::Status HostlistBuilder::AddHost(absl::string_view host_name) {
  if (host_name.empty()) return absl::InvalidArgumentError("host name is empty");
  for (char c : host_name) {
    if (hostlist_internal::IsForbiddenInHostName(c)) {
      return absl::InvalidArgumentError(
          absl::StrCat("host name ", hostlist_internal::QuoteForError(host_name), " contains ",
                       hostlist_internal::QuoteForError(absl::string_view(&c, 1)),
                       "; names may not contain separators, brackets or control characters"));
    }
  }
  PushHostName(host_name);
  return absl::OkStatus();
}

absl::Status HostlistBuilder::AddHostlist(absl::string_view expression) {
  absl::StatusOr<std::vector<HostPattern>> patterns =
      hostlist_internal::ParseHostExpression(expression);
  if (!patterns.ok()) return patterns.status();
  absl::StatusOr<uint64_t> count = hostlist_internal::TotalHostCount(*patterns, expression);
  if (!count.ok()) return count.status();
  if (*count > options_.max_hosts) {
    return absl::InvalidArgumentError(
        absl::StrCat("host expression ", hostlist_internal::QuoteForError(expression), " names ",
                     *count, " hosts, more than the limit of ", options_.max_hosts));
  }
  for (const HostPattern& pattern : *patterns) {
    if (pattern.brackets.empty()) {
      PushHostName(pattern.text);
      continue;
    }
    const absl::string_view suffix = pattern.literals.back();
    ForEachPrefix(pattern, [&](const std::string& prefix) {
      for (const NumberRange& range : pattern.brackets.back()) {
        if (suffix.empty()) {
          PushRange(HostRange{.lo = range.lo,
                              .hi = range.hi,
                              .prefix_id = InternPrefix(prefix),
                              .width = range.width});
          continue;
        }
        // Slurm's hostlist_push_hr() pushes hosts with a suffix after the bracket as whole
        // names, not split into prefix and number: "n[1-2]-ib0" never becomes a range.
        for (uint64_t value = range.lo;; ++value) {
          std::string name = prefix;
          AppendPaddedNumber(value, range.width, name);
          name.append(suffix.data(), suffix.size());
          PushRange(HostRange{.prefix_id = InternPrefix(name), .single = true});
          if (value == range.hi) break;
        }
      }
    });
  }
  return absl::OkStatus();
}

std::string HostlistBuilder::Build() const {
  if (options_.order == HostlistOrder::kAsGiven) return Render(ranges_);

  // Distinct prefixes are few; ranking them once keeps the range sort to integer
  // comparisons. NaturalCompare is 0 only for equal strings, so ranks are distinct.
  std::vector<uint32_t> by_name(prefixes_.size());
  std::iota(by_name.begin(), by_name.end(), 0);
  MergeSortLikeGlibc(by_name, [this](uint32_t a, uint32_t b) {
    return NaturalCompare(prefixes_[a], prefixes_[b]);
  });
  std::vector<uint32_t> prefix_rank(prefixes_.size());
  for (uint32_t rank = 0; rank < by_name.size(); ++rank) prefix_rank[by_name[rank]] = rank;

  // Sorting 4-byte positions moves far less memory than sorting the ranges themselves, and
  // joining while reading them in sorted order never materialises the sorted copy.
  std::vector<uint32_t> order(ranges_.size());
  std::iota(order.begin(), order.end(), 0);
  MergeSortLikeGlibc(order, [this, &prefix_rank](uint32_t a, uint32_t b) {
    return CompareLikeSlurm(ranges_[a], ranges_[b], prefix_rank);
  });
  const auto sorted_at = [this, &order](size_t i) -> const HostRange& { return ranges_[order[i]]; };
  if (options_.order == HostlistOrder::kSortedUnique) {
    return Render(JoinAndDropDuplicates(order.size(), sorted_at));
  }
  bool any_overlap = false;
  for (size_t i = 1; i < order.size() && !any_overlap; ++i) {
    any_overlap = Intersection(sorted_at(i - 1), sorted_at(i)).has_value();
  }
  if (!any_overlap) return Render(JoinConsecutive(order.size(), sorted_at));
  std::vector<HostRange> sorted;
  sorted.reserve(order.size());
  for (uint32_t position : order) sorted.push_back(ranges_[position]);
  const std::vector<HostRange> pieces = SplitOverlaps(std::move(sorted));
  return Render(JoinConsecutive(pieces.size(),
                                [&pieces](size_t i) -> const HostRange& { return pieces[i]; }));
}

// Slurm's hostlist_ranged_string(): neighbours with the same prefix share one pair of
// brackets; a lone host prints without brackets.
std::string HostlistBuilder::Render(const std::vector<HostRange>& ranges) const {
  std::string out;
  out.reserve(ranges.size() * 8 + 16);
  for (size_t i = 0; i < ranges.size();) {
    if (i > 0) out.push_back(',');
    const size_t first = i;
    out.append(prefixes_[ranges[i].prefix_id]);
    const bool brackets =
        HostsIn(ranges[i]) > 1 ||
        (i + 1 < ranges.size() && SharePrefixAndBrackets(ranges[i], ranges[i + 1]));
    if (brackets) out.push_back('[');
    do {
      const HostRange& range = ranges[i];
      if (i > first) out.push_back(',');
      if (!range.single) {
        AppendPaddedNumber(range.lo, range.width, out);
        if (range.lo < range.hi) {
          out.push_back('-');
          AppendPaddedNumber(range.hi, range.width, out);
        }
      }
    } while (++i < ranges.size() && SharePrefixAndBrackets(ranges[i], ranges[i - 1]));
    if (brackets) out.push_back(']');
  }
  return out;
}

void HostlistBuilder::Reserve(size_t host_count) { ranges_.reserve(ranges_.size() + host_count); }

void HostlistBuilder::Clear() {
  prefixes_.clear();
  prefix_ids_.clear();
  last_prefix_id_ = 0;
  ranges_.clear();
  host_count_ = 0;
}

uint32_t HostlistBuilder::InternPrefix(absl::string_view prefix) {
  // Names usually arrive grouped by prefix; skip the hash lookup for a repeat.
  if (last_prefix_id_ < prefixes_.size() && prefixes_[last_prefix_id_] == prefix) {
    return last_prefix_id_;
  }
  auto found = prefix_ids_.find(prefix);
  if (found == prefix_ids_.end()) {
    const auto id = static_cast<uint32_t>(prefixes_.size());
    prefixes_.emplace_back(prefix);
    found = prefix_ids_.emplace(prefixes_.back(), id).first;
  }
  last_prefix_id_ = found->second;
  return last_prefix_id_;
}

// Slurm's hostlist_push_range(): a range that directly continues the last one extends it.
void HostlistBuilder::PushRange(const HostRange& range) {
  host_count_ += HostsIn(range);
  if (!ranges_.empty() && Continues(ranges_.back(), range)) {
    ranges_.back().hi = range.hi;
    return;
  }
  ranges_.push_back(range);
}

// Slurm's hostname_create(): trailing digits are the host's number, the rest its prefix;
// a name without trailing digits is a single host.
void HostlistBuilder::PushHostName(absl::string_view host_name) {
  size_t digits_start = host_name.size();
  while (digits_start > 0 && host_name[digits_start - 1] >= '0' &&
         host_name[digits_start - 1] <= '9') {
    --digits_start;
  }
  const absl::string_view digits = host_name.substr(digits_start);
  uint64_t value = 0;
  bool fits = !digits.empty();
  for (char c : digits) {
    const auto digit = static_cast<uint64_t>(c - '0');
    if (value > (hostlist_internal::kMaxHostNumber - digit) / 10) {
      // Slurm's strtoul() would turn the number into ULONG_MAX and print a different name;
      // keeping the name whole is the only output that still names the same host.
      fits = false;
      break;
    }
    value = value * 10 + digit;
  }
  if (!fits) {
    PushRange(HostRange{.prefix_id = InternPrefix(host_name), .single = true});
    return;
  }
  PushRange(HostRange{.lo = value,
                      .hi = value,
                      .prefix_id = InternPrefix(host_name.substr(0, digits_start)),
                      .width = static_cast<int32_t>(digits.size())});
}

namespace {

template <typename Name>
absl::StatusOr<std::string> CompressNames(absl::Span<const Name> host_names,
                                          const CompressOptions& options) {
  HostlistBuilder builder(options);
  // Pages of the reservation that in-order names never fill are never touched.
  builder.Reserve(host_names.size());
  for (const Name& name : host_names) {
    absl::Status added = builder.AddHost(name);
    if (!added.ok()) return added;
  }
  return builder.Build();
}

}  // namespace

absl::StatusOr<std::string> CompressHostNames(absl::Span<const std::string> host_names,
                                              const CompressOptions& options) {
  return CompressNames(host_names, options);
}

absl::StatusOr<std::string> CompressHostNames(absl::Span<const absl::string_view> host_names,
                                              const CompressOptions& options) {
  return CompressNames(host_names, options);
}

absl::StatusOr<std::string> RecompressHostlist(absl::string_view expression,
                                               const CompressOptions& options) {
  HostlistBuilder builder(options);
  absl::Status added = builder.AddHostlist(expression);
  if (!added.ok()) return added;
  return builder.Build();
}

}  // namespace tidepool::slurm
