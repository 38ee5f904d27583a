#pragma once

// The provisioner's worker: one thread that, whenever an informer signals a change (and
// every resync interval, to retry what failed), plans from the PVC and PV caches
// (plan.h) and carries the actions out: directories on this machine, PVs on the API
// server. Level-triggered: a pass recomputes everything from the caches, so a signal only
// says "look again".

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/periodic_worker.h"
#include "k8s/client.h"
#include "k8s/informer.h"
#include "plan.h"

namespace tidepool::local_pv {

class Provisioner {
 public:
  // `client`, `claims` (PersistentVolumeClaims, all namespaces) and `volumes`
  // (PersistentVolumes) outlive the provisioner.
  Provisioner(k8s::Client& client, k8s::Informer& claims, k8s::Informer& volumes, PlanConfig config,
              absl::Duration resync_interval);
  ~Provisioner() { Stop(); }
  Provisioner(const Provisioner&) = delete;
  Provisioner& operator=(const Provisioner&) = delete;

  // Something changed: run a pass soon. Cheap and thread-safe (informer handlers call it).
  void Signal();
  // Starts the worker (call once); its first pass runs at once.
  void Start();
  // Waits for the pass under way, if any, to finish; no pass starts after it.
  void Stop();

  // One pass: plan from the caches, then act. Public so that it can be run by hand.
  void ReconcileOnce();

 private:
  absl::Status ProvisionOne(const Provision& action);
  absl::Status ReclaimOne(const Reclaim& action);
  void LogSkips(const std::vector<Skip>& skips);

  k8s::Client& client_;
  k8s::Informer& claims_;
  k8s::Informer& volumes_;
  const PlanConfig config_;
  const absl::Duration resync_interval_;

  absl::Mutex mutex_;  // Signal runs on the informers' threads, Start and Stop on main's
  std::unique_ptr<common::PeriodicWorker> worker_ ABSL_GUARDED_BY(mutex_);  // set by Start

  // The last reason logged per skipped object (worker thread only), so that a claim
  // waiting for its consumer is logged once, not every pass.
  std::map<std::string, std::string> logged_skips_;
};

}  // namespace tidepool::local_pv
