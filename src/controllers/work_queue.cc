#include "controllers/work_queue.h"

#include <algorithm>

namespace etna::controllers {

void WorkQueue::AddLocked(const std::string& key) {
  if (shut_down_) return;
  if (processing_.count(key)) {
    dirty_.insert(key);
    return;
  }
  if (queued_.insert(key).second) {
    queue_.push_back(key);
    cv_.notify_one();
  }
}

void WorkQueue::Add(const std::string& key) {
  std::lock_guard lock(mu_);
  AddLocked(key);
}

void WorkQueue::AddAfter(const std::string& key, std::chrono::milliseconds delay) {
  std::lock_guard lock(mu_);
  auto due = std::chrono::steady_clock::now() + delay;
  auto [it, inserted] = after_.emplace(key, due);
  if (!inserted) it->second = std::min(it->second, due);
}

void WorkQueue::AddAt(const std::string& key, TimeMs clock_time) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = at_.emplace(key, clock_time);
  if (!inserted) it->second = std::min(it->second, clock_time);
}

void WorkQueue::AddRateLimited(const std::string& key) {
  std::chrono::milliseconds delay;
  {
    std::lock_guard lock(mu_);
    int n = failures_[key]++;
    delay = backoff_initial_;
    for (int i = 0; i < n && delay < backoff_max_; ++i) delay *= 2;
    delay = std::min(delay, backoff_max_);
  }
  AddAfter(key, delay);
}

void WorkQueue::Forget(const std::string& key) {
  std::lock_guard lock(mu_);
  failures_.erase(key);
}

void WorkQueue::RetryNow() {
  std::lock_guard lock(mu_);
  for (const auto& [key, due] : after_) AddLocked(key);
  after_.clear();
}

void WorkQueue::PromoteDueLocked() {
  auto now = std::chrono::steady_clock::now();
  for (auto it = after_.begin(); it != after_.end();) {
    if (it->second <= now) {
      AddLocked(it->first);
      it = after_.erase(it);
    } else {
      ++it;
    }
  }
  TimeMs t = clock_->NowMs();
  for (auto it = at_.begin(); it != at_.end();) {
    if (it->second <= t) {
      AddLocked(it->first);
      it = at_.erase(it);
    } else {
      ++it;
    }
  }
}

std::optional<std::string> WorkQueue::Get(std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  auto deadline = std::chrono::steady_clock::now() + wait;
  while (true) {
    if (shut_down_) return std::nullopt;
    PromoteDueLocked();
    if (!queue_.empty()) {
      std::string key = queue_.front();
      queue_.pop_front();
      queued_.erase(key);
      processing_.insert(key);
      return key;
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return std::nullopt;
    // Delayed keys (and the injected clock) are polled at a short tick.
    cv_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(10)));
  }
}

void WorkQueue::Done(const std::string& key) {
  std::lock_guard lock(mu_);
  processing_.erase(key);
  if (dirty_.erase(key)) AddLocked(key);
  cv_.notify_all();
}

void WorkQueue::ShutDown() {
  std::lock_guard lock(mu_);
  shut_down_ = true;
  cv_.notify_all();
}

bool WorkQueue::Idle() {
  std::lock_guard lock(mu_);
  PromoteDueLocked();
  return queue_.empty() && processing_.empty();
}

}  // namespace etna::controllers
