#pragma once

#include <cstdint>

#include "absl/status/statusor.h"

namespace tidepool::testing {

// A loopback TCP port that was free a moment ago (the kernel picked it).
absl::StatusOr<uint16_t> FreeLoopbackPort();

// Holds a loopback port bound and listening until destroyed, to test "port in use".
class OccupiedPort {
 public:
  static absl::StatusOr<OccupiedPort> Bind();
  OccupiedPort(OccupiedPort&& other) noexcept : fd_(other.fd_), port_(other.port_) {
    other.fd_ = -1;
  }
  OccupiedPort(const OccupiedPort&) = delete;
  OccupiedPort& operator=(const OccupiedPort&) = delete;
  OccupiedPort& operator=(OccupiedPort&&) = delete;
  ~OccupiedPort();
  uint16_t port() const { return port_; }

 private:
  OccupiedPort(int fd, uint16_t port) : fd_(fd), port_(port) {}
  int fd_;
  uint16_t port_;
};

}  // namespace tidepool::testing
