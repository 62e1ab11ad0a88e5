// Runs callbacks at deadlines on one background thread (watch timeouts).
//
// Callbacks must be cheap and must not block (they wake streams). Thread-safety: Schedule may
// be called from any thread; the destructor stops the thread and drops pending callbacks.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace etna::api::server {

class Ticker {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  Ticker();
  ~Ticker();
  Ticker(const Ticker&) = delete;
  Ticker& operator=(const Ticker&) = delete;
  void Schedule(TimePoint when, std::function<void()> fn);

 private:
  void Run();
  std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<TimePoint, std::function<void()>> pending_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace etna::api::server
