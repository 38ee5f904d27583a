#include "common/keyed_mutex.h"

namespace tidepool::common {

KeyedMutex::Lock::Lock(KeyedMutex& owner, absl::string_view key)
    : owner_(owner), key_(key), mutex_(owner.Acquire(key_)) {
  mutex_->Lock();
}

KeyedMutex::Lock::~Lock() {
  mutex_->Unlock();
  owner_.Release(key_);
}

std::shared_ptr<absl::Mutex> KeyedMutex::Acquire(const std::string& key) {
  absl::MutexLock lock(&table_mutex_);
  Entry& entry = table_[key];
  ++entry.users;
  return entry.mutex;
}

void KeyedMutex::Release(const std::string& key) {
  absl::MutexLock lock(&table_mutex_);
  auto it = table_.find(key);
  if (it != table_.end() && --it->second.users == 0) table_.erase(it);
}

size_t KeyedMutex::KeysInUse() const {
  absl::MutexLock lock(&table_mutex_);
  return table_.size();
}

}  // namespace tidepool::common
