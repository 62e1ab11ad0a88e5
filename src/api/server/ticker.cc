#include "api/server/ticker.h"

namespace etna::api::server {

Ticker::Ticker() : thread_([this] { Run(); }) {}

Ticker::~Ticker() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Ticker::Schedule(TimePoint when, std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    pending_.emplace(when, std::move(fn));
  }
  cv_.notify_all();
}

void Ticker::Run() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (pending_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto first = pending_.begin();
    if (first->first > std::chrono::steady_clock::now()) {
      cv_.wait_until(lock, first->first);
      continue;
    }
    std::function<void()> fn = std::move(first->second);
    pending_.erase(first);
    lock.unlock();
    fn();
    lock.lock();
  }
}

}  // namespace etna::api::server
