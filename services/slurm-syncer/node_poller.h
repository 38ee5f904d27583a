#pragma once

// The one loop that reads Slurm's nodes: every interval an incremental request
// (update_time) that costs one small reply when nothing changed, a full list after an
// outage and every full_resync_interval; what changed goes to the node feed, which
// every WatchNodes stream follows.
//
//   tidepool_slurm_syncer_node_polls_total{result="changed|unchanged|error"}
//   tidepool_slurm_syncer_node_poll_duration_seconds
//   tidepool_slurm_syncer_nodes{state="idle|allocated|mixed|down|…"}
//   tidepool_slurm_syncer_nodes_drain          nodes with the DRAIN flag
//   tidepool_slurm_syncer_slurm_reachable      1 while the last poll succeeded

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "common/periodic_worker.h"
#include "feed.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "slurm/rest/model.h"
#include "slurm_gateway.h"

namespace tidepool::syncer {

using NodeFeed = Feed<std::string, slurm::rest::Node>;

// The update_time for the next incremental request. Slurm stamps node changes in whole
// seconds, so a change in the same second as the last reply's stamp would carry the
// same stamp: while the fetch that saw `last_update` began no later than that second,
// ask from one second earlier (costing at most one extra full reply).
absl::Time IncrementalSince(absl::Time last_update, absl::Time fetch_started);

struct NodePollerOptions {
  absl::Duration interval = absl::Seconds(1);
  absl::Duration full_resync_interval = absl::Minutes(5);
};

class NodePoller {
 public:
  NodePoller(SlurmGateway& slurm, NodeFeed& feed, NodePollerOptions options,
             prometheus::Registry& registry);
  ~NodePoller();

  // Polls on a thread of its own until Stop (or destruction).
  void Start();
  void Stop();
  // Polls again now (after the syncer changed a node, so watchers see it at once).
  void Wake();
  // One poll on the caller's thread (Start's thread calls this).
  void PollOnce();

 private:
  struct Metrics;
  void Publish(slurm::rest::NodeList list, absl::Time fetch_started);
  bool FullListDue(absl::Time now) const;

  SlurmGateway& slurm_;
  NodeFeed& feed_;
  const NodePollerOptions options_;
  std::unique_ptr<Metrics> metrics_;
  std::unique_ptr<common::PeriodicWorker> worker_;
  // Owned by the polling thread.
  absl::Time last_update_ = absl::InfinitePast();
  absl::Time last_fetch_started_ = absl::InfinitePast();
  absl::Time last_full_list_ = absl::InfinitePast();
};

}  // namespace tidepool::syncer
