// Watch fan-out shared by both backends.
//
// WatchQueue is the Watcher a client holds: a bounded queue of events under one prefix. WatchHub
// holds weak references to every live queue and hands each committed batch of events to all of
// them. Delivery never blocks the writer: a queue that would exceed its capacity (in events, or
// in bytes of keys and values: a client that never reads its watch of large objects) is closed
// with ResourceExhausted instead.
//
// Thread-safety: both classes are thread-safe. The backend calls Publish in revision order (under
// its own publish lock), and registers a new queue under that same lock after handing it the
// history, so a watcher sees every revision exactly once.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "store/store.h"

namespace etna::store {

// The most bytes of keys and values a watcher may hold unread before it is closed.
inline constexpr size_t kWatchQueueMaxBytes = size_t{32} << 20;

class WatchQueue : public Watcher {
 public:
  WatchQueue(std::string prefix, Revision after_revision, size_t capacity,
             size_t capacity_bytes = kWatchQueueMaxBytes);

  Result<std::optional<Event>> Next(std::chrono::milliseconds timeout) override;
  void SetNotify(std::function<void()> fn) override;
  void SetFilter(std::function<bool(const Event&)> keep) override;
  void Cancel() override;

  // Queues the events under the prefix with revision > after_revision, in order; events of a
  // revision already seen in an earlier call are repeats and dropped. Several events may share
  // a revision (one etcd transaction); they come in one call. With `bounded`, closes the
  // queue with ResourceExhausted instead of growing past capacity. Returns false once closed.
  bool Deliver(const std::vector<Event>& events, bool bounded);
  // Deliver without the wake-up: sets *needs_wake when the consumer must be woken (Wake), which
  // the caller may then do on another thread.
  bool Queue(const std::vector<Event>& events, bool bounded, bool* needs_wake);
  // Wakes a consumer blocked in Next and calls the notify callback.
  void Wake();
  void Close(Status status);

 private:
  std::function<void()> NotifyFnLocked();

  const std::string prefix_;
  const size_t capacity_;
  const size_t capacity_bytes_;
  std::mutex mu_;
  std::condition_variable cv_;
  Revision after_;  // highest revision seen so far (or the start point)
  std::deque<Event> queue_;
  size_t queued_bytes_ = 0;  // keys and values in queue_
  Status closed_;            // non-OK once closed
  std::function<void()> notify_;
  std::function<bool(const Event&)> keep_;  // null: every event
};

class WatchHub {
 public:
  explicit WatchHub(size_t queue_capacity, size_t queue_capacity_bytes = kWatchQueueMaxBytes)
      : queue_capacity_(queue_capacity), queue_capacity_bytes_(queue_capacity_bytes) {}

  // A queue already holding `history` (all events after from_revision up to now), registered for
  // the live events that follow.
  std::shared_ptr<WatchQueue> Register(const std::string& prefix, Revision from_revision,
                                       const std::vector<Event>& history);
  // Queues `events` on every watcher. Without `to_wake`, wakes their consumers too; with it,
  // adds the queues to wake to it instead (a committer leaves the wake-ups, each of which may
  // hand the CPU to the woken thread, to another thread).
  void Publish(const std::vector<Event>& events,
               std::vector<std::shared_ptr<WatchQueue>>* to_wake = nullptr);
  void CloseAll(const Status& status);
  size_t LiveWatchers();

 private:
  const size_t queue_capacity_;
  const size_t queue_capacity_bytes_;
  std::mutex mu_;
  std::vector<std::weak_ptr<WatchQueue>> queues_;
};

}  // namespace etna::store
