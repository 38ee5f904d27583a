#include "k8s/request_priority.h"

namespace tidepool::k8s {
namespace {

thread_local bool urgent_requests = false;

}  // namespace

UrgentRequests::UrgentRequests(bool urgent) : outer_(urgent_requests) { urgent_requests = urgent; }

UrgentRequests::~UrgentRequests() { urgent_requests = outer_; }

bool UrgentRequests::Active() { return urgent_requests; }

}  // namespace tidepool::k8s
