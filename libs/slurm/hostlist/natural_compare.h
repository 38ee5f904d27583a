#pragma once

#include "absl/strings/string_view.h"

namespace tidepool::slurm {

// Orders strings the way Slurm's strnatcmp() does, which is how hostlist_sort() orders
// prefixes: runs of digits compare as numbers ("n2" < "n10"), except that a run starting with
// '0' compares digit by digit ("n007" < "n01" < "n1"); whitespace is skipped; other bytes
// compare as signed chars, as on x86 Linux. Returns <0, 0 or >0. The strings must not
// contain NUL bytes.
int NaturalCompare(absl::string_view a, absl::string_view b);

}  // namespace tidepool::slurm
