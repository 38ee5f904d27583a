#pragma once

#include <signal.h>

namespace tidepool::common {

// Blocks SIGTERM and SIGINT for the calling thread and every thread it starts later,
// so that only Wait() receives them. Create it first in main, before any thread exists.
// Restores the previous signal mask when destroyed.
class ShutdownSignal {
 public:
  ShutdownSignal();
  ~ShutdownSignal();
  ShutdownSignal(const ShutdownSignal&) = delete;
  ShutdownSignal& operator=(const ShutdownSignal&) = delete;

  // Blocks until SIGTERM or SIGINT arrives; returns the signal number.
  int Wait();

 private:
  sigset_t shutdown_signals_;
  sigset_t previous_mask_;
};

}  // namespace tidepool::common
