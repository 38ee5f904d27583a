#pragma once

// A Secret's data values, base64-decoded, for the code that reads keys, certificates and
// credentials out of Secrets. What is wrong is said as a phrase to follow "Secret <name> ",
// so each caller names its Secret and says what to do; no message ever holds a value.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "rapidjson/document.h"

namespace tidepool::k8s {

// data[key] of a parsed Secret, decoded. FailedPrecondition "has no data key \"<key>\""
// when it is absent, not a string or empty, or "has data key \"<key>\" that is not base64".
absl::StatusOr<std::string> SecretDataValue(const rapidjson::Value& secret, const char* key);
// The same from a Secret's JSON; FailedPrecondition "cannot be read as a Secret" when it is
// not a JSON object.
absl::StatusOr<std::string> SecretDataValue(absl::string_view secret_json, const char* key);

}  // namespace tidepool::k8s
