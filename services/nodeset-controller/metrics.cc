#include "metrics.h"

#include <string>
#include <vector>

#include "common/metrics.h"
#include "plan.h"

namespace tidepool::nodeset {
namespace {

constexpr char kService[] = "nodeset-controller";

std::string Name(absl::string_view what) { return common::MetricName(kService, what); }

}  // namespace

ControllerMetrics::ControllerMetrics(prometheus::Registry& registry)
    : syncs_(prometheus::BuildCounter()
                 .Name(Name("syncs_total"))
                 .Help("NodeSet syncs by result (success, error)")
                 .Register(registry)),
      sync_duration_(
          prometheus::BuildHistogram()
              .Name(Name("sync_duration_seconds"))
              .Help("Time of one NodeSet sync: observe, plan, act, write status")
              .Register(registry)
              .Add({}, prometheus::Histogram::BucketBoundaries{0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                               0.25, 0.5, 1, 5, 30})),
      pods_created_(prometheus::BuildCounter()
                        .Name(Name("pods_created_total"))
                        .Help("slurmd pods created")
                        .Register(registry)
                        .Add({})),
      pods_deleted_(prometheus::BuildCounter()
                        .Name(Name("pods_deleted_total"))
                        .Help("slurmd pods deleted, by cause (scale-in, update, not-feasible)")
                        .Register(registry)),
      drains_(prometheus::BuildCounter()
                  .Name(Name("drains_requested_total"))
                  .Help("Slurm drains asked of slurm-syncer before a pod deletion, by cause")
                  .Register(registry)),
      undrains_(prometheus::BuildCounter()
                    .Name(Name("undrains_total"))
                    .Help("Our own drains cleared once the pod was ready and current")
                    .Register(registry)
                    .Add({})),
      leader_(common::RegisterLeaderGauge(registry, kService)),
      slurm_reachable_(prometheus::BuildGauge()
                           .Name(Name("slurm_reachable"))
                           .Help("1 while slurm-syncer's node watch is current, else 0")
                           .Register(registry)
                           .Add({})),
      gates_held_(prometheus::BuildCounter()
                      .Name(Name("gates_held_total"))
                      .Help("slurmd pods' SlurmNodeInUse gates turned True while slurm-syncer "
                            "had no leader")
                      .Register(registry)
                      .Add({})),
      syncer_absent_(prometheus::BuildGauge()
                         .Name(Name("slurm_syncer_absent"))
                         .Help("1 while slurm-syncer's Lease has had no live holder for the "
                               "grace (its gates are held True), else 0")
                         .Register(registry)
                         .Add({})) {
  common::AddZeroSeries(syncs_, {{"result", {"success", "error"}}});
  const std::vector<std::string> causes = {DeletionCauseName(DeletionCause::kScaleIn),
                                           DeletionCauseName(DeletionCause::kUpdate),
                                           DeletionCauseName(DeletionCause::kNotFeasible)};
  common::AddZeroSeries(pods_deleted_, {{"cause", causes}});
  common::AddZeroSeries(drains_, {{"cause", causes}});
}

void ControllerMetrics::CountSync(absl::string_view result, double seconds) {
  syncs_.Add({{"result", std::string(result)}}).Increment();
  sync_duration_.Observe(seconds);
}

void ControllerMetrics::CountPodDeleted(absl::string_view cause) {
  pods_deleted_.Add({{"cause", std::string(cause)}}).Increment();
}

void ControllerMetrics::CountDrainRequested(absl::string_view cause) {
  drains_.Add({{"cause", std::string(cause)}}).Increment();
}

}  // namespace tidepool::nodeset
