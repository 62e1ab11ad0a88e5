#include "store/watch_hub.h"

#include <fmt/format.h>

#include "store/keys.h"

namespace etna::store {

namespace {
size_t EventBytes(const Event& e) { return e.key.size() + e.value.size(); }
}  // namespace

WatchQueue::WatchQueue(std::string prefix, Revision after_revision, size_t capacity,
                       size_t capacity_bytes)
    : prefix_(std::move(prefix)),
      capacity_(capacity),
      capacity_bytes_(capacity_bytes),
      after_(after_revision) {}

Result<std::optional<Event>> WatchQueue::Next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  // A zero timeout is a poll (the PrefixCache's, per read): no timed wait, which is a system
  // call even when it has nothing to wait for.
  if (timeout.count() > 0) {
    cv_.wait_for(lock, timeout, [&] { return !queue_.empty() || !closed_.ok(); });
  }
  if (!queue_.empty()) {
    Event e = std::move(queue_.front());
    queue_.pop_front();
    queued_bytes_ -= EventBytes(e);
    return std::optional<Event>(std::move(e));
  }
  if (!closed_.ok()) return closed_;
  return std::optional<Event>();
}

void WatchQueue::SetNotify(std::function<void()> fn) {
  std::function<void()> now;
  {
    std::lock_guard lock(mu_);
    notify_ = std::move(fn);
    if (!queue_.empty() || !closed_.ok()) now = notify_;
  }
  if (now) now();
}

void WatchQueue::SetFilter(std::function<bool(const Event&)> keep) {
  std::lock_guard lock(mu_);
  keep_ = std::move(keep);
}

void WatchQueue::Cancel() { Close(Status::Unavailable("watch cancelled")); }

bool WatchQueue::Deliver(const std::vector<Event>& events, bool bounded) {
  bool wake = false;
  bool open = Queue(events, bounded, &wake);
  if (wake) Wake();
  return open;
}

bool WatchQueue::Queue(const std::vector<Event>& events, bool bounded, bool* needs_wake) {
  bool open;
  {
    std::lock_guard lock(mu_);
    if (!closed_.ok()) return false;
    size_t added = 0;
    // A revision already seen in an earlier call is a repeat; several events of one revision
    // (an etcd transaction) come in one call.
    const Revision seen_before = after_;
    for (const Event& e : events) {
      if (e.revision <= seen_before || e.revision < after_ || !HasPrefix(e.key, prefix_)) continue;
      after_ = e.revision;
      if (keep_ && !keep_(e)) continue;
      if (bounded && queue_.size() >= capacity_) {
        closed_ = Status::ResourceExhausted(fmt::format(
            "watch on \"{}\" fell more than {} events behind at revision {}; re-list and re-watch",
            prefix_, capacity_, e.revision));
        break;
      }
      if (bounded && queued_bytes_ + EventBytes(e) > capacity_bytes_) {
        closed_ = Status::ResourceExhausted(fmt::format(
            "watch on \"{}\" fell more than {} bytes behind at revision {}; re-list and re-watch",
            prefix_, capacity_bytes_, e.revision));
        break;
      }
      queued_bytes_ += EventBytes(e);
      queue_.push_back(e);
      ++added;
    }
    if (!closed_.ok()) {
      queue_.clear();
      queued_bytes_ = 0;
    }
    open = closed_.ok();
    *needs_wake = added > 0 || !open;
  }
  return open;
}

void WatchQueue::Wake() {
  std::function<void()> notify;
  {
    std::lock_guard lock(mu_);
    notify = notify_;
  }
  // A consumer blocked in Next is woken as well as the callback called (the watch cache's
  // applier blocks; a consumer with a callback drains with Next(0)).
  cv_.notify_all();
  if (notify) notify();
}

void WatchQueue::Close(Status status) {
  std::function<void()> notify;
  {
    std::lock_guard lock(mu_);
    if (!closed_.ok()) return;
    closed_ = std::move(status);
    notify = notify_;
  }
  cv_.notify_all();
  if (notify) notify();
}

std::shared_ptr<WatchQueue> WatchHub::Register(const std::string& prefix, Revision from_revision,
                                               const std::vector<Event>& history) {
  auto q =
      std::make_shared<WatchQueue>(prefix, from_revision, queue_capacity_, queue_capacity_bytes_);
  q->Deliver(history, /*bounded=*/false);
  std::lock_guard lock(mu_);
  queues_.push_back(q);
  return q;
}

void WatchHub::Publish(const std::vector<Event>& events,
                       std::vector<std::shared_ptr<WatchQueue>>* to_wake) {
  std::lock_guard lock(mu_);
  std::erase_if(queues_, [&](const std::weak_ptr<WatchQueue>& w) {
    auto q = w.lock();
    if (!q) return true;
    if (!to_wake) return !q->Deliver(events, /*bounded=*/true);
    bool wake = false;
    bool open = q->Queue(events, /*bounded=*/true, &wake);
    if (wake) to_wake->push_back(std::move(q));
    return !open;
  });
}

void WatchHub::CloseAll(const Status& status) {
  std::lock_guard lock(mu_);
  for (auto& w : queues_) {
    if (auto q = w.lock()) q->Close(status);
  }
  queues_.clear();
}

size_t WatchHub::LiveWatchers() {
  std::lock_guard lock(mu_);
  std::erase_if(queues_, [](const std::weak_ptr<WatchQueue>& w) { return w.expired(); });
  return queues_.size();
}

}  // namespace etna::store
