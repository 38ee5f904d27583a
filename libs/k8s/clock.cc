#include "k8s/clock.h"

#include "absl/time/clock.h"

namespace tidepool::k8s {
namespace {

class SystemClock : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
  void SleepFor(absl::Duration duration) override {
    if (duration > absl::ZeroDuration()) absl::SleepFor(duration);
  }
};

}  // namespace

Clock* RealClock() {
  static Clock* const clock = new SystemClock();
  return clock;
}

}  // namespace tidepool::k8s
