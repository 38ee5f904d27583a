#include "k8s/secret_data.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "k8s/object_json.h"

namespace tidepool::k8s {

absl::StatusOr<std::string> SecretDataValue(const rapidjson::Value& secret, const char* key) {
  const rapidjson::Value* data = FindMember(secret, "data");
  const rapidjson::Value* encoded = data != nullptr ? FindMember(*data, key) : nullptr;
  if (encoded == nullptr || !encoded->IsString() || encoded->GetStringLength() == 0) {
    return absl::FailedPreconditionError(absl::StrCat("has no data key \"", key, "\""));
  }
  std::string value;
  if (!absl::Base64Unescape(absl::string_view(encoded->GetString(), encoded->GetStringLength()),
                            &value)) {
    return absl::FailedPreconditionError(
        absl::StrCat("has data key \"", key, "\" that is not base64"));
  }
  return value;
}

absl::StatusOr<std::string> SecretDataValue(absl::string_view secret_json, const char* key) {
  absl::StatusOr<rapidjson::Document> doc = ParseJsonObject(secret_json, "Secret");
  if (!doc.ok()) return absl::FailedPreconditionError("cannot be read as a Secret");
  return SecretDataValue(*doc, key);
}

}  // namespace tidepool::k8s
