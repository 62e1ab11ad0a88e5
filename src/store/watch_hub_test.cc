#include "store/watch_hub.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "store/keys.h"

namespace etna::store {
namespace {

Event Ev(Revision rev, std::string key) {
  return Event{EventType::kAdded, std::move(key), "v", rev, rev};
}

// A consumer blocked in Next without a callback (the watch cache's applier) is woken by the
// publish, not by its timeout.
TEST(WatchHubTest, APublishWakesAConsumerBlockedInNext) {
  WatchHub hub(4);
  auto q = hub.Register("/", 0, {});
  const auto timeout = std::chrono::seconds(30);
  std::chrono::steady_clock::duration waited{};
  Result<std::optional<Event>> got = std::optional<Event>();
  std::atomic<bool> waiting{false};
  std::thread consumer([&] {
    auto start = std::chrono::steady_clock::now();
    waiting = true;
    got = q->Next(std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
    waited = std::chrono::steady_clock::now() - start;
  });
  // Almost always published while the consumer waits (just before, Next finds it at once).
  while (!waiting) std::this_thread::yield();
  hub.Publish({Ev(1, "/pods/a")});
  consumer.join();
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->key, "/pods/a");
  EXPECT_LT(waited, timeout / 2);
}

TEST(WatchHubTest, FiltersByPrefixAndRevisionAndDropsDeadWatchers) {
  WatchHub hub(4);
  auto q = hub.Register("/pods/", 1, {Ev(1, "/pods/a"), Ev(2, "/pods/b")});
  {
    auto gone = hub.Register("/", 0, {});
    EXPECT_EQ(hub.LiveWatchers(), 2u);
  }
  EXPECT_EQ(hub.LiveWatchers(), 1u);
  hub.Publish({Ev(2, "/pods/b"), Ev(3, "/nodes/n"), Ev(4, "/pods/c")});  // 2 is a duplicate
  std::vector<Revision> got;
  while (true) {
    auto e = q->Next(std::chrono::milliseconds(0));
    ASSERT_TRUE(e.ok());
    if (!e->has_value()) break;
    got.push_back((*e)->revision);
  }
  EXPECT_EQ(got, (std::vector<Revision>{2, 4}));
  hub.CloseAll(Status::Unavailable("closing"));
  EXPECT_EQ(q->Next(std::chrono::milliseconds(0)).status().code(), StatusCode::kUnavailable);
}

TEST(WatchHubTest, OverflowClosesOnlyTheSlowQueue) {
  WatchHub hub(2);
  auto slow = hub.Register("/", 0, {});
  auto fast = hub.Register("/", 0, {});
  for (Revision r = 1; r <= 3; ++r) {
    hub.Publish({Ev(r, "/k")});
    ASSERT_TRUE(fast->Next(std::chrono::milliseconds(0)).ok());
  }
  EXPECT_EQ(slow->Next(std::chrono::milliseconds(0)).status().code(),
            StatusCode::kResourceExhausted);
  EXPECT_EQ(hub.LiveWatchers(), 1u);
}

// A client that never reads its watch of large objects is closed once its unread events pass
// the byte capacity, however few they are; one that reads keeps its watch.
TEST(WatchHubTest, UnreadBytesPastTheCapacityCloseTheQueue) {
  WatchHub hub(/*queue_capacity=*/100, /*queue_capacity_bytes=*/1000);
  auto stalled = hub.Register("/", 0, {});
  auto reading = hub.Register("/", 0, {});
  const std::string big(300, 'x');
  for (Revision r = 1; r <= 4; ++r) {
    Event e = Ev(r, "/k");
    e.value = big;
    hub.Publish({e});
    auto got = reading->Next(std::chrono::milliseconds(0));
    ASSERT_TRUE(got.ok() && got->has_value());
  }
  auto first = stalled->Next(std::chrono::milliseconds(0));
  EXPECT_EQ(first.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(first.status().message().find("1000 bytes"), std::string::npos)
      << first.status().message();
  EXPECT_EQ(hub.LiveWatchers(), 1u);
}

// A filtered queue neither keeps nor is woken by the events its filter drops, and they do not
// count toward its capacity; the ones it keeps arrive in order.
TEST(WatchHubTest, FilterDropsEventsUnqueuedAndUnwoken) {
  WatchHub hub(2);
  auto q = hub.Register("/pods/", 0, {});
  int wakes = 0;
  q->SetNotify([&] { ++wakes; });
  q->SetFilter([](const Event& e) { return e.key.ends_with("mine"); });
  for (Revision r = 1; r <= 5; ++r) hub.Publish({Ev(r, "/pods/other")});
  EXPECT_EQ(wakes, 0);
  hub.Publish({Ev(6, "/pods/mine"), Ev(7, "/pods/other"), Ev(8, "/pods/mine")});
  EXPECT_EQ(wakes, 1);
  std::vector<Revision> got;
  while (true) {
    auto e = q->Next(std::chrono::milliseconds(0));
    ASSERT_TRUE(e.ok()) << "five dropped events must not overflow a queue of two";
    if (!e->has_value()) break;
    got.push_back((*e)->revision);
  }
  EXPECT_EQ(got, (std::vector<Revision>{6, 8}));
}

TEST(KeysTest, PrefixRanges) {
  EXPECT_EQ(PrefixEnd("/pods/"), "/pods0");
  EXPECT_EQ(PrefixEnd(std::string("/a\xff", 3)), "/b");
  EXPECT_EQ(PrefixEnd(""), "");
  EXPECT_EQ(ListStart("/pods/", ""), "/pods/");
  EXPECT_EQ(ListStart("/pods/", "/pods/a"), std::string("/pods/a\0", 8));
  EXPECT_EQ(ResourcePrefix("nodes"), "/nodes/");
  EXPECT_EQ(ClusterKey("nodes", "n1"), "/nodes/n1");
}

}  // namespace
}  // namespace etna::store
