#include "common/secret_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tidepool::common {

absl::Status CheckSecretFileMode(const std::string& path, absl::string_view what) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the ", what, " ", path, ": ", std::strerror(errno)));
  }
  constexpr mode_t kForbidden = S_IWGRP | S_IXGRP | S_IRWXO;
  if ((info.st_mode & kForbidden) != 0) {
    return absl::PermissionDeniedError(absl::StrFormat(
        "the %s %s has mode %04o: others must have no access and its group at most read "
        "(chmod 0600; in a Secret volume, defaultMode 0440 with the pod's fsGroup)",
        what, path, info.st_mode & 07777));
  }
  return absl::OkStatus();
}

}  // namespace tidepool::common
