#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace tidepool::common {

// `"text" is not one of a, b, c`: what a value outside its fixed choices is told (an empty
// choice shows as "").
std::string NotOneOf(absl::string_view text, absl::Span<const absl::string_view> choices);

// OK when `text` is one of `choices`; else InvalidArgument `<subject>"text" is not one of …`,
// e.g. subject "--control_plane=".
absl::Status CheckOneOf(absl::string_view subject, absl::string_view text,
                        std::initializer_list<absl::string_view> choices);

template <typename T>
struct NamedChoice {
  absl::string_view name;
  T value;
};

// The value named `text`, or the error of CheckOneOf.
template <typename T>
absl::StatusOr<T> ParseOneOf(absl::string_view subject, absl::string_view text,
                             std::initializer_list<NamedChoice<T>> choices) {
  std::vector<absl::string_view> names;
  for (const NamedChoice<T>& choice : choices) {
    if (text == choice.name) return choice.value;
    names.push_back(choice.name);
  }
  return absl::InvalidArgumentError(std::string(subject) + NotOneOf(text, names));
}

}  // namespace tidepool::common
