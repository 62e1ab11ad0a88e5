#include "store/revision_waiters.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace etna::store {
namespace {

// Waiters for different revisions: each advance wakes the ones it reached (well before their
// 30 s timeout), and a waiter whose revision never comes times out with false.
TEST(RevisionWaitersTest, EachAdvanceWakesTheWaitersItReached) {
  std::mutex mu;
  RevisionWaiters waiters;
  Revision revision = 0;
  const auto timeout = std::chrono::seconds(30);
  const std::vector<Revision> targets = {3, 1, 7, 3, 5};
  std::vector<Revision> seen(targets.size(), 0);
  std::vector<std::chrono::steady_clock::duration> waited(targets.size());
  int waiting = 0;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < targets.size(); ++i) {
    threads.emplace_back([&, i] {
      std::unique_lock lock(mu);
      ++waiting;
      auto start = std::chrono::steady_clock::now();
      bool reached =
          waiters.WaitFor(lock, targets[i], timeout, [&] { return revision >= targets[i]; });
      waited[i] = std::chrono::steady_clock::now() - start;
      seen[i] = reached ? revision : -1;
    });
  }
  while (true) {
    std::lock_guard lock(mu);
    if (waiting == static_cast<int>(targets.size())) break;
  }
  for (Revision r = 1; r <= 7; r += 2) {
    std::lock_guard lock(mu);
    revision = r;
    waiters.Wake(r);
  }
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < targets.size(); ++i) {
    EXPECT_GE(seen[i], targets[i]) << "waiter for " << targets[i];
    EXPECT_LT(waited[i], timeout / 2) << "waiter for " << targets[i];
  }

  std::unique_lock lock(mu);
  EXPECT_FALSE(
      waiters.WaitFor(lock, 9, std::chrono::milliseconds(1), [&] { return revision >= 9; }));
  EXPECT_TRUE(
      waiters.WaitFor(lock, 7, std::chrono::milliseconds(1), [&] { return revision >= 7; }));
}

// WakeAll ends every wait (shutting down): the predicate decides what the waiter returns.
TEST(RevisionWaitersTest, WakeAllEndsEveryWait) {
  std::mutex mu;
  RevisionWaiters waiters;
  bool stop = false;
  bool waiting = false;
  bool reached = false;
  std::thread t([&] {
    std::unique_lock lock(mu);
    waiting = true;
    reached = waiters.WaitFor(lock, 100, std::chrono::seconds(30), [&] { return stop; });
  });
  while (true) {
    std::lock_guard lock(mu);
    if (waiting) break;
  }
  {
    std::lock_guard lock(mu);
    stop = true;
    waiters.WakeAll();
  }
  t.join();
  EXPECT_TRUE(reached);
}

}  // namespace
}  // namespace etna::store
