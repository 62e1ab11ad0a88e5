// WorkQueue: the keys ("<ns>/<name>") a controller has to reconcile, as client-go's rate-limited
// delaying queue. A key is held once however often it is added; a key added while a worker
// processes it is handed out again after Done. Delays come in two clocks: AddAfter waits real
// (steady) time, for retry backoff; AddAt waits until the injected Clock reaches a time, for
// TTLs and timeouts that tests drive with a FakeClock.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "common/clock.h"

namespace etna::controllers {

class WorkQueue {
 public:
  explicit WorkQueue(const Clock* clock)
      : clock_(clock), system_clock_(dynamic_cast<const SystemClock*>(clock) != nullptr) {}

  void Add(const std::string& key);
  void AddAfter(const std::string& key, std::chrono::milliseconds delay);
  void AddAt(const std::string& key, TimeMs clock_time);
  // Retries `key` after an exponential backoff (initial, doubled per failure, up to max).
  void AddRateLimited(const std::string& key);
  // Clears the failure count of `key` (after a successful reconcile).
  void Forget(const std::string& key);
  // Makes the keys waiting out a retry backoff (AddAfter, AddRateLimited) due now: a test that
  // drives a controller synchronously retries at once (Controller::SyncOnce).
  void RetryNow();

  // The next due key, waiting up to `wait`; nullopt on timeout or after ShutDown. The caller
  // must call Done(key) when it has processed it.
  std::optional<std::string> Get(std::chrono::milliseconds wait);
  void Done(const std::string& key);
  void ShutDown();

  // Nothing due and nothing being processed (delayed keys may still wait).
  bool Idle();
  void SetBackoff(std::chrono::milliseconds initial, std::chrono::milliseconds max) {
    std::lock_guard lock(mu_);
    backoff_initial_ = initial;
    backoff_max_ = max;
  }

 private:
  // Keys due at a time on one clock, ordered by when they fall due (a key once, at its earliest).
  template <typename Time>
  class DueKeys {
   public:
    void Add(const std::string& key, Time due) {
      auto [it, inserted] = due_.emplace(key, due);
      if (!inserted) {
        if (it->second <= due) return;
        order_.erase({it->second, key});
        it->second = due;
      }
      order_.emplace(due, key);
    }
    // Removes and passes to `fn` each key due at or before `now`, earliest first.
    template <typename Fn>
    void PopDue(Time now, Fn fn) {
      while (!order_.empty() && order_.begin()->first <= now) {
        std::string key = std::move(order_.begin()->second);
        order_.erase(order_.begin());
        due_.erase(key);
        fn(key);
      }
    }
    template <typename Fn>
    void PopAll(Fn fn) {
      for (const auto& [key, due] : due_) fn(key);
      due_.clear();
      order_.clear();
    }
    bool empty() const { return order_.empty(); }
    Time earliest() const { return order_.begin()->first; }

   private:
    std::map<std::string, Time> due_;
    std::set<std::pair<Time, std::string>> order_;
  };

  void AddLocked(const std::string& key);
  void PromoteDueLocked();

  const Clock* clock_;
  bool system_clock_;  // keys due on it can be waited for exactly; a fake clock is polled
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::set<std::string> queued_;
  std::set<std::string> processing_;
  std::set<std::string> dirty_;  // added while processing
  DueKeys<std::chrono::steady_clock::time_point> after_;
  DueKeys<TimeMs> at_;
  std::map<std::string, int> failures_;
  std::chrono::milliseconds backoff_initial_{20};
  std::chrono::milliseconds backoff_max_{5000};
  bool shut_down_ = false;
};

}  // namespace etna::controllers
