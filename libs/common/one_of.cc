#include "common/one_of.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tidepool::common {

std::string NotOneOf(absl::string_view text, absl::Span<const absl::string_view> choices) {
  return absl::StrCat("\"", text, "\" is not one of ",
                      absl::StrJoin(choices, ", ", [](std::string* out, absl::string_view choice) {
                        absl::StrAppend(out, choice.empty() ? "\"\"" : choice);
                      }));
}

absl::Status CheckOneOf(absl::string_view subject, absl::string_view text,
                        std::initializer_list<absl::string_view> choices) {
  for (absl::string_view choice : choices) {
    if (text == choice) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(subject, NotOneOf(text, choices)));
}

}  // namespace tidepool::common
