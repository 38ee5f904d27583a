#include "support/ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

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

absl::StatusOr<uint16_t> FreeLoopbackPort() {
  auto bound = BindLoopback();
  if (!bound.ok()) return bound.status();
  close(bound->first);
  return bound->second;
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
