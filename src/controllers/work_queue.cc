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
  after_.Add(key, std::chrono::steady_clock::now() + delay);
  cv_.notify_one();  // a waiting worker may now have to wake earlier
}

void WorkQueue::AddAt(const std::string& key, TimeMs clock_time) {
  std::lock_guard lock(mu_);
  at_.Add(key, clock_time);
  cv_.notify_one();
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
  after_.PopAll([&](const std::string& key) { AddLocked(key); });
}

void WorkQueue::PromoteDueLocked() {
  after_.PopDue(std::chrono::steady_clock::now(), [&](const std::string& key) { AddLocked(key); });
  at_.PopDue(clock_->NowMs(), [&](const std::string& key) { AddLocked(key); });
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
    // Keys due on a fake clock are polled at a short tick (a test moves it without notice); keys
    // due on the system clock or in steady time are waited for exactly.
    auto wake = deadline;
    if (!at_.empty()) {
      TimeMs in_ms = system_clock_ ? std::max<TimeMs>(0, at_.earliest() - clock_->NowMs()) : 10;
      wake = std::min(wake, now + std::chrono::milliseconds(in_ms));
    }
    if (!after_.empty()) wake = std::min(wake, after_.earliest());
    cv_.wait_until(lock, wake);
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
