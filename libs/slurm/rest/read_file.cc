#include "slurm/rest/read_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/secret_file.h"

namespace tidepool::slurm::rest {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path, absl::string_view what) {
  if (absl::Status mode = common::CheckSecretFileMode(path, what); !mode.ok()) return mode;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    const std::string message = absl::StrCat("cannot read ", what, " ", path, ": ", strerror(err));
    if (err == ENOENT) return absl::NotFoundError(message);
    if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(message);
    return absl::FailedPreconditionError(message);
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace tidepool::slurm::rest
