#pragma once

// One mutex per key, made on first use and dropped when no one holds or waits for it:
// serialises work on one object (a Slurm node's read–decide–write) while work on other
// objects runs in parallel. Memory is bounded by the keys in use, not by the keys seen.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace tidepool::common {

class KeyedMutex {
 public:
  // Holds `key`'s mutex until destroyed.
  class Lock {
   public:
    Lock(KeyedMutex& owner, absl::string_view key);
    ~Lock();
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;

   private:
    KeyedMutex& owner_;
    const std::string key_;
    std::shared_ptr<absl::Mutex> mutex_;
  };

  // Keys whose mutex is held or waited for (for tests and metrics).
  size_t KeysInUse() const;

 private:
  struct Entry {
    std::shared_ptr<absl::Mutex> mutex = std::make_shared<absl::Mutex>();
    int64_t users = 0;
  };
  std::shared_ptr<absl::Mutex> Acquire(const std::string& key);
  void Release(const std::string& key);

  mutable absl::Mutex table_mutex_;
  absl::flat_hash_map<std::string, Entry> table_ ABSL_GUARDED_BY(table_mutex_);
};

}  // namespace tidepool::common
