#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tidepool::api {

// Parses Kubernetes quantities, remembering the last text that parsed: the Nodes of a
// NodeSet usually report the same allocatable text, so at thousands of Nodes most parses
// would repeat the one before. Failures are not remembered; they are rare and parsed again.
class QuantityMemo {
 public:
  using Parser = absl::StatusOr<int64_t> (*)(absl::string_view);

  explicit QuantityMemo(Parser parser) : parser_(parser) {}

  absl::StatusOr<int64_t> Parse(absl::string_view text) {
    if (remembered_ && text == text_) return value_;
    absl::StatusOr<int64_t> value = parser_(text);
    remembered_ = value.ok();
    if (remembered_) {
      text_.assign(text.data(), text.size());
      value_ = *value;
    }
    return value;
  }

 private:
  Parser parser_;
  bool remembered_ = false;
  std::string text_;
  int64_t value_ = 0;
};

}  // namespace tidepool::api
