#include "job_watch.h"

#include <catch2/catch_test_macros.hpp>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"

namespace tidepool::podsched {
namespace {

using tidepool::v1::WatchJobsResponse;

// Hands out the scripted messages, then blocks until cancelled.
class ScriptedStream : public JobWatchStream {
 public:
  explicit ScriptedStream(std::deque<WatchJobsResponse> script) : script_(std::move(script)) {}
  bool Read(WatchJobsResponse& message) override {
    absl::MutexLock lock(&mutex_);
    if (script_.empty()) {
      mutex_.Await(absl::Condition(&cancelled_));
      return false;
    }
    message = std::move(script_.front());
    script_.pop_front();
    return true;
  }
  absl::Status Finish() override { return absl::CancelledError("cancelled"); }
  void Cancel() override {
    absl::MutexLock lock(&mutex_);
    cancelled_ = true;
  }

 private:
  absl::Mutex mutex_;
  std::deque<WatchJobsResponse> script_ ABSL_GUARDED_BY(mutex_);
  bool cancelled_ ABSL_GUARDED_BY(mutex_) = false;
};

class ScriptedSyncer : public SyncerJobs {
 public:
  explicit ScriptedSyncer(std::deque<WatchJobsResponse> script) : script_(std::move(script)) {}
  absl::StatusOr<uint32_t> Submit(const tidepool::v1::JobSpec&) override {
    return absl::UnimplementedError("");
  }
  absl::Status Cancel(uint32_t) override { return absl::UnimplementedError(""); }
  std::unique_ptr<JobWatchStream> Watch() override {
    return std::make_unique<ScriptedStream>(std::exchange(script_, {}));
  }
  absl::StatusOr<std::string> JobUser() override { return std::string("slurm"); }

 private:
  std::deque<WatchJobsResponse> script_;
};

WatchJobsResponse Message(WatchJobsResponse::Kind kind) {
  WatchJobsResponse message;
  message.set_kind(kind);
  message.mutable_observed_at()->set_seconds(absl::ToUnixSeconds(absl::Now()));
  if (kind == WatchJobsResponse::SNAPSHOT) message.set_snapshot_complete(true);
  return message;
}

TEST_CASE("every key is looked at again when the job view is fresh after an outage") {
  ScriptedSyncer syncer({Message(WatchJobsResponse::SNAPSHOT),
                         Message(WatchJobsResponse::SLURM_UNAVAILABLE),
                         Message(WatchJobsResponse::CHANGES)});  // empty: current again
  JobTable table(absl::InfinitePast());
  absl::Mutex mutex;
  std::vector<bool> calls;  // `everything` of each call
  JobWatch watch(syncer, table, [&](const std::set<std::string>&, bool everything) {
    absl::MutexLock lock(&mutex);
    calls.push_back(everything);
  });
  watch.Start();
  absl::MutexLock lock(&mutex);
  mutex.AwaitWithTimeout(absl::Condition(
                             +[](std::vector<bool>* c) { return c->size() >= 2; }, &calls),
                         absl::Seconds(10));
  CHECK(calls == std::vector<bool>{true, true});  // the snapshot, then the recovery
  CHECK(table.fresh());
}

}  // namespace
}  // namespace tidepool::podsched
