#include "annotation_error.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace tidepool::podsched {

absl::Status InvalidAnnotation(absl::string_view annotation, absl::string_view value,
                               absl::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("annotation ", annotation, ": \"", absl::CHexEscape(value), "\" ", problem));
}

}  // namespace tidepool::podsched
