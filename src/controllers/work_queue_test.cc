#include "controllers/work_queue.h"

#include <gtest/gtest.h>

namespace etna::controllers {
namespace {

using namespace std::chrono_literals;

TEST(WorkQueueTest, DeduplicatesAndRequeuesKeysAddedWhileProcessing) {
  FakeClock clock;
  WorkQueue q(&clock);
  q.Add("a");
  q.Add("a");
  q.Add("b");
  EXPECT_EQ(q.Get(0ms), "a");
  q.Add("a");  // while processing: handed out again after Done
  EXPECT_EQ(q.Get(0ms), "b");
  EXPECT_EQ(q.Get(0ms), std::nullopt);
  q.Done("b");
  q.Done("a");
  EXPECT_EQ(q.Get(0ms), "a");
  q.Done("a");
  EXPECT_TRUE(q.Idle());
}

TEST(WorkQueueTest, AddAtWaitsForTheInjectedClock) {
  FakeClock clock;
  WorkQueue q(&clock);
  q.AddAt("ttl", clock.NowMs() + 60'000);
  EXPECT_EQ(q.Get(20ms), std::nullopt);
  clock.Advance(60'000);
  EXPECT_EQ(q.Get(1s), "ttl");
}

TEST(WorkQueueTest, DueKeysComeOutEarliestFirstAndAKeyAddedTwiceKeepsItsEarliestTime) {
  FakeClock clock;
  WorkQueue q(&clock);
  TimeMs now = clock.NowMs();
  q.AddAt("late", now + 3'000);
  q.AddAt("early", now + 1'000);
  q.AddAt("late", now + 2'000);   // earlier: moves up
  q.AddAt("early", now + 5'000);  // later: ignored
  clock.Advance(1'000);
  EXPECT_EQ(q.Get(0ms), "early");
  EXPECT_EQ(q.Get(0ms), std::nullopt);
  clock.Advance(1'000);
  EXPECT_EQ(q.Get(0ms), "late");
  clock.Advance(10'000);
  EXPECT_EQ(q.Get(0ms), std::nullopt);  // each key once
}

TEST(WorkQueueTest, AKeyDueInSteadyTimeWakesAWaitingWorker) {
  SystemClock clock;
  WorkQueue q(&clock);
  q.AddAfter("retry", 30ms);
  q.AddAt("ttl", clock.NowMs() + 40);
  EXPECT_EQ(q.Get(5s), "retry");
  EXPECT_EQ(q.Get(5s), "ttl");
}

TEST(WorkQueueTest, RateLimitedRetriesComeBack) {
  FakeClock clock;
  WorkQueue q(&clock);
  q.SetBackoff(1ms, 4ms);
  q.AddRateLimited("x");
  EXPECT_EQ(q.Get(5s), "x");
  q.Done("x");
  q.ShutDown();
  EXPECT_EQ(q.Get(1s), std::nullopt);
}

TEST(WorkQueueTest, RetryNowSkipsTheBackoff) {
  FakeClock clock;
  WorkQueue q(&clock);
  q.SetBackoff(1h, 1h);
  q.AddRateLimited("x");
  EXPECT_EQ(q.Get(0ms), std::nullopt);
  q.RetryNow();
  EXPECT_EQ(q.Get(0ms), "x");
}

}  // namespace
}  // namespace etna::controllers
