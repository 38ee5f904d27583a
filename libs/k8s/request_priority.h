#pragma once

// Which of a client's two rate-limit buckets a thread's requests draw from. A sync that
// starts or ends a drain runs inside an UrgentRequests scope, so its few writes take
// tokens from the urgent bucket and do not queue behind the reservations of a bulk of
// routine writes (a mass cordon's 10,000 confirmations) in the routine one.

namespace tidepool::k8s {

class UrgentRequests {
 public:
  // While this object lives, requests from this thread are urgent if `urgent` (nested
  // scopes restore the outer one's setting).
  explicit UrgentRequests(bool urgent);
  ~UrgentRequests();
  UrgentRequests(const UrgentRequests&) = delete;
  UrgentRequests& operator=(const UrgentRequests&) = delete;

  // True inside an urgent scope on this thread.
  static bool Active();

 private:
  const bool outer_;
};

}  // namespace tidepool::k8s
