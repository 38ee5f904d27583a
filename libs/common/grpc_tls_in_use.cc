#include "common/grpc_tls_in_use.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"

namespace tidepool::common {
namespace {

constexpr const char* kFiles[] = {"ca.crt", "tls.crt", "tls.key"};

absl::Status ErrnoError(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

// Writes `content` to a new file `path`, readable by its owner only.
absl::Status WritePrivateFile(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError("cannot create " + path);
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status error = ErrnoError("cannot write " + path);
      ::close(fd);
      return error;
    }
    written += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return ErrnoError("cannot write " + path);
  return absl::OkStatus();
}

constexpr char kPrefix[] = "tidepool-grpc-tls-";

// The copies this process made (a process may hold several: tests do).
absl::Mutex made_here_mutex(absl::kConstInit);
absl::flat_hash_set<std::string>& MadeHere() ABSL_EXCLUSIVE_LOCKS_REQUIRED(made_here_mutex) {
  static auto* made = new absl::flat_hash_set<std::string>();  // never destroyed
  return *made;
}

// Copies left by processes killed before their destructor ran: of this user, named with a pid
// that is gone, or with ours but not made here (a previous container of this pod was pid 1
// too).
void RemoveStaleCopies(const std::string& base) {
  absl::MutexLock lock(&made_here_mutex);
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(base, error)) {
    const std::string name = entry.path().filename().string();
    absl::string_view rest = name;
    if (!absl::ConsumePrefix(&rest, kPrefix)) continue;
    int pid = 0;
    if (!absl::SimpleAtoi(rest.substr(0, rest.find('-')), &pid) || pid <= 0) continue;
    struct stat info {};
    if (::lstat(entry.path().c_str(), &info) != 0 || !S_ISDIR(info.st_mode) ||
        info.st_uid != ::geteuid()) {
      continue;
    }
    const bool ours_before = pid == ::getpid() && !MadeHere().contains(entry.path().string());
    if (ours_before || (::kill(pid, 0) != 0 && errno == ESRCH)) {
      std::filesystem::remove_all(entry.path(), error);
    }
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcTlsInUse>> GrpcTlsInUse::Create(const GrpcTls& tls,
                                                                   const std::string& base,
                                                                   absl::Duration refresh) {
  RemoveStaleCopies(base);
  std::string pattern = absl::StrCat(base, "/", kPrefix, ::getpid(), "-XXXXXX");
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  if (::mkdtemp(name.data()) == nullptr) {
    return ErrnoError("cannot make a directory for the gRPC identity in use under " + base);
  }
  auto in_use = std::unique_ptr<GrpcTlsInUse>(new GrpcTlsInUse(name.data()));
  {
    absl::MutexLock lock(&made_here_mutex);
    MadeHere().insert(in_use->dir_);
  }
  if (absl::Status published = in_use->Publish(tls); !published.ok()) return published;
  const auto seconds =
      static_cast<unsigned int>(std::max<int64_t>(1, absl::ToInt64Seconds(refresh)));
  in_use->provider_ = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      in_use->dir_ + "/tls.key", in_use->dir_ + "/tls.crt", in_use->dir_ + "/ca.crt", seconds);
  return in_use;
}

GrpcTlsInUse::~GrpcTlsInUse() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
  absl::MutexLock lock(&made_here_mutex);
  MadeHere().erase(dir_);
}

absl::Status GrpcTlsInUse::LinkFiles() const {
  namespace fs = std::filesystem;
  for (const char* file : kFiles) {
    const fs::path link = fs::path(dir_) / file;
    std::error_code error;
    if (fs::is_symlink(fs::symlink_status(link, error))) continue;
    fs::create_symlink(fs::path("..data") / file, link, error);
    if (error) {
      return absl::InternalError(
          absl::StrCat("cannot link ", file, " in ", dir_, ": ", error.message()));
    }
  }
  return absl::OkStatus();
}

absl::Status GrpcTlsInUse::Publish(const GrpcTls& tls) {
  namespace fs = std::filesystem;
  const std::string version = absl::StrCat("..version", ++version_);
  const fs::path version_dir = fs::path(dir_) / version;
  std::error_code error;
  fs::remove_all(version_dir, error);  // left by a failed attempt
  if (!fs::create_directory(version_dir, error) || error) {
    return absl::InternalError(
        absl::StrCat("cannot make ", version_dir.string(), ": ", error.message()));
  }
  fs::permissions(version_dir, fs::perms::owner_all, error);
  for (const auto& [file, content] :
       {std::pair{"ca.crt", &tls.ca_pem}, std::pair{"tls.crt", &tls.cert_pem},
        std::pair{"tls.key", &tls.key_pem}}) {
    if (absl::Status written = WritePrivateFile((version_dir / file).string(), *content);
        !written.ok()) {
      fs::remove_all(version_dir, error);
      return written;
    }
  }
  if (absl::Status linked = LinkFiles(); !linked.ok()) {
    fs::remove_all(version_dir, error);
    return linked;
  }
  // All three at once: gRPC reads the files through ..data, swapped by one rename.
  const fs::path next = fs::path(dir_) / "..data_next";
  fs::remove(next, error);
  fs::create_symlink(version, next, error);
  if (!error) fs::rename(next, fs::path(dir_) / "..data", error);
  if (error) {
    absl::Status failed = absl::InternalError(
        absl::StrCat("cannot switch ", dir_, " to ", version, ": ", error.message()));
    fs::remove_all(version_dir, error);
    return failed;
  }
  // The previous version: a read that opened it before the rename keeps its files open.
  if (!live_version_.empty()) fs::remove_all(fs::path(dir_) / live_version_, error);
  live_version_ = version;
  return absl::OkStatus();
}

}  // namespace tidepool::common
