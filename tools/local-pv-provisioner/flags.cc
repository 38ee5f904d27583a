#include "flags.h"

#include <filesystem>
#include <system_error>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "plan.h"

ABSL_FLAG(std::string, kubeconfig, "", "kubeconfig of the API server (required)");
ABSL_FLAG(std::string, volume_dir, "",
          "Absolute base directory of the volumes' data (required); each PV gets "
          "<volume_dir>/<PV name>");
ABSL_FLAG(std::string, provisioner_name, tidepool::local_pv::kDefaultProvisionerName,
          "The StorageClass provisioner this serves");
ABSL_FLAG(std::string, log_level, "info", "Lowest level logged: debug, info, warn or error");

namespace tidepool::local_pv {
namespace {

absl::Status FlagError(absl::string_view flag, absl::string_view problem) {
  return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", problem));
}

}  // namespace

absl::StatusOr<ProvisionerOptions> ReadProvisionerFlags() {
  ProvisionerOptions options;
  options.kubeconfig = absl::GetFlag(FLAGS_kubeconfig);
  if (options.kubeconfig.empty()) return FlagError("kubeconfig", "is required");
  std::error_code error;
  if (!std::filesystem::is_regular_file(options.kubeconfig, error)) {
    return FlagError("kubeconfig", absl::StrCat(options.kubeconfig, " is not a readable file"));
  }
  const std::string volume_dir = absl::GetFlag(FLAGS_volume_dir);
  if (volume_dir.empty()) return FlagError("volume_dir", "is required");
  std::filesystem::path normal = std::filesystem::path(volume_dir).lexically_normal();
  if (!normal.is_absolute()) {
    return FlagError("volume_dir", absl::StrCat("\"", volume_dir, "\" is not an absolute path"));
  }
  options.volume_dir = normal.string();
  while (options.volume_dir.size() > 1 && options.volume_dir.back() == '/') {
    options.volume_dir.pop_back();
  }
  if (options.volume_dir == "/") return FlagError("volume_dir", "must not be /");
  options.provisioner_name = absl::GetFlag(FLAGS_provisioner_name);
  if (options.provisioner_name.empty()) return FlagError("provisioner_name", "must not be empty");
  return options;
}

absl::StatusOr<common::LogLevel> ReadLogLevelFlag() {
  absl::StatusOr<common::LogLevel> level = common::ParseLogLevel(absl::GetFlag(FLAGS_log_level));
  if (!level.ok()) return FlagError("log_level", level.status().message());
  return level;
}

}  // namespace tidepool::local_pv
