#include "common/shutdown_signal.h"

#include <pthread.h>

namespace tidepool::common {

ShutdownSignal::ShutdownSignal() {
  sigemptyset(&shutdown_signals_);
  sigaddset(&shutdown_signals_, SIGTERM);
  sigaddset(&shutdown_signals_, SIGINT);
  pthread_sigmask(SIG_BLOCK, &shutdown_signals_, &previous_mask_);
}

ShutdownSignal::~ShutdownSignal() { pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr); }

int ShutdownSignal::Wait() {
  int signal_number = 0;
  while (sigwait(&shutdown_signals_, &signal_number) != 0) {
  }
  return signal_number;
}

}  // namespace tidepool::common
