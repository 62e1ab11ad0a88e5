// PodRunRetention: keeps the accounting records (PodRuns, api/types/pod_run.h) for a bounded
// time: deletes those that ended longer ago than the retention (`etna server
// --accounting-retention`, 90 days by default), at start and every period after, on a thread of
// its own. Several servers on one store may sweep at once: a record another one deleted is skipped.
// Thread-safety: Sweep may be called from any thread; the destructor stops the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

#include "api/server/object_service.h"
#include "common/clock.h"
#include "common/status.h"

namespace etna::api::server {

class PodRunRetention {
 public:
  static constexpr std::chrono::hours kDefaultRetention{24 * 90};

  PodRunRetention(ObjectService* objects, const Clock* clock, std::chrono::milliseconds retention)
      : objects_(objects), clock_(clock), retention_(retention) {}
  ~PodRunRetention();

  // Deletes the records that ended before now − retention; how many it deleted.
  Result<size_t> Sweep();
  // Sweeps now and every `period` until destruction.
  void Start(std::chrono::milliseconds period);

 private:
  ObjectService* objects_;
  const Clock* clock_;
  std::chrono::milliseconds retention_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread sweeper_;
};

}  // namespace etna::api::server
