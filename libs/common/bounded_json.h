#pragma once

// JSON from outside the process (the API server, slurmrestd, JWTs, files) is parsed with
// its nesting bounded: rapidjson's parser recurses once per level, and a document nested
// deeply enough (two million '[' segfaulted it) would exhaust the stack.

#include "absl/strings/string_view.h"

namespace tidepool::common {

// Far deeper than any Kubernetes object or Slurm reply.
inline constexpr int kMaxJsonDepth = 512;

// True when no value in `text` is nested deeper than `max_depth` arrays and objects
// (brackets inside strings do not count). One pass, no recursion.
bool JsonDepthWithin(absl::string_view text, int max_depth = kMaxJsonDepth);

// doc.Parse(text), unless `text` is nested too deeply: then `doc` holds a parse error
// (HasParseError) without having been parsed. False in that case. Any rapidjson document
// type (the Slurm REST library builds rapidjson in a namespace of its own).
template <typename Document>
bool ParseBoundedJson(Document& doc, absl::string_view text) {
  if (!JsonDepthWithin(text)) {
    doc.Parse("");  // an empty document: a parse error every caller already handles
    return false;
  }
  doc.Parse(text.data(), text.size());
  return true;
}

}  // namespace tidepool::common
