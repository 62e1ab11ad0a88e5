// RevisionWaiters: threads waiting until a rising revision reaches each one's target. Advancing
// wakes only the waiters whose target was reached: one condition variable notified on every
// advance woke every waiter on every advance, and with 64 writers each waiting for its own write
// to come back through the etcd watch most of the server's CPU went to those wakeups.
//
// Thread-safety: the caller's mutex guards both the revision and this object; every method is
// called with it held (WaitFor releases it while waiting, like std::condition_variable).
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "store/store.h"

namespace etna::store {

class RevisionWaiters {
 public:
  // Waits on `lock` until `done()` holds, for at most `timeout`; returns done(). `target` is the
  // revision whose arrival may make done() true (a Wake at or past it wakes this waiter).
  template <class Done>
  bool WaitFor(std::unique_lock<std::mutex>& lock, Revision target,
               std::chrono::milliseconds timeout, Done done) {
    if (done()) return true;
    std::condition_variable cv;
    auto it = waiting_.emplace(target, &cv);
    bool reached = cv.wait_for(lock, timeout, done);
    waiting_.erase(it);
    return reached;
  }

  // Wakes the waiters whose target is at most `revision`.
  void Wake(Revision revision) {
    for (auto it = waiting_.begin(); it != waiting_.end() && it->first <= revision; ++it) {
      it->second->notify_one();
    }
  }

  // Wakes every waiter (shutting down).
  void WakeAll() {
    for (auto& [target, cv] : waiting_) cv->notify_one();
  }

 private:
  std::multimap<Revision, std::condition_variable*> waiting_;
};

}  // namespace etna::store
