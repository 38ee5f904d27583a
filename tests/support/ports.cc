#include "support/ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace tidepool::testing {
namespace {

absl::StatusOr<std::pair<int, uint16_t>> BindLoopback() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const std::string error = std::strerror(errno);
    close(fd);
    return absl::InternalError(absl::StrCat("bind 127.0.0.1:0: ", error));
  }
  return std::make_pair(fd, ntohs(address.sin_port));
}

}  // namespace

// The kernel may hand a just-closed port out again, so two calls in a row could
// return one port (CI once started a service with --grpc_port == --http_port).
// Each port is given once per process.
absl::StatusOr<uint16_t> FreeLoopbackPort() {
  static absl::Mutex mutex(absl::kConstInit);
  static absl::flat_hash_set<uint16_t>* given ABSL_GUARDED_BY(mutex) =
      new absl::flat_hash_set<uint16_t>();
  constexpr int kAttempts = 64;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    auto bound = BindLoopback();
    if (!bound.ok()) return bound.status();
    close(bound->first);
    absl::MutexLock lock(&mutex);
    if (given->insert(bound->second).second) return bound->second;
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("no loopback port not given before in ", kAttempts, " attempts"));
}

absl::StatusOr<OccupiedPort> OccupiedPort::Bind() {
  auto bound = BindLoopback();
  if (!bound.ok()) return bound.status();
  if (listen(bound->first, 1) != 0) {
    close(bound->first);
    return absl::InternalError(absl::StrCat("listen: ", std::strerror(errno)));
  }
  return OccupiedPort(bound->first, bound->second);
}

OccupiedPort::~OccupiedPort() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace tidepool::testing
