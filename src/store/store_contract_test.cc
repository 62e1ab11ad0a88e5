// The Store contract, run against every backend.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "store/keys.h"
#include "store/store_testing.h"
#ifdef ETNA_STORE_CONTRACT_ON_ETCD
#include "store/etcd/etcd_backend_testing.h"
#endif

namespace etna::store {
namespace {

using testing::DrainNow;
using testing::TempDir;

constexpr std::chrono::milliseconds kNow{0};

template <typename Backend>
class StoreContractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Reopen(1000);
    if (store_) base_ = store_->CurrentRevision();
  }
  void Reopen(size_t watch_capacity) {
    store_.reset();
    store_ = Backend::Make(dir_.path(), watch_capacity);
    ASSERT_NE(store_, nullptr);
  }
  Revision MustCreate(const std::string& key, const std::string& value) {
    auto r = store_->Create(key, value);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : 0;
  }
  std::vector<std::string> Keys(const ListResult& l) {
    std::vector<std::string> keys;
    for (const KeyValue& kv : l.items) keys.push_back(kv.key);
    return keys;
  }

  // The revision the store starts at: 0 for a new SQLite or memory store; etcd starts at 1.
  // Revisions below are counted from it.
  Revision R(Revision n) const { return base_ + n; }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  Revision base_ = 0;
};

#ifdef ETNA_STORE_CONTRACT_ON_ETCD
using Backends = ::testing::Types<testing::EtcdBackend, testing::CachedEtcdBackend>;
#else
using Backends =
    ::testing::Types<testing::MemoryBackend, testing::SqliteBackend, testing::CachedSqliteBackend>;
#endif
TYPED_TEST_SUITE(StoreContractTest, Backends);

TYPED_TEST(StoreContractTest, CreateGetUpdateDelete) {
  Store& s = *this->store_;
  const std::string key = ObjectKey("pods", "default", "p1");
  EXPECT_EQ(key, "/pods/default/p1");
  Revision r1 = this->MustCreate(key, "v1");
  EXPECT_EQ(s.Create(key, "again").status().code(), StatusCode::kAlreadyExists);
  auto got = s.Get(key);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, "v1");
  EXPECT_EQ(got->create_revision, r1);
  EXPECT_EQ(got->mod_revision, r1);

  EXPECT_EQ(s.Update("/pods/default/none", "x", 0).status().code(), StatusCode::kNotFound);
  auto r2 = s.Update(key, "v2", r1);
  ASSERT_TRUE(r2.ok());
  EXPECT_GT(*r2, r1);
  auto stale = s.Update(key, "v3", r1);
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);
  EXPECT_NE(stale.status().message().find(key), std::string::npos);
  auto r3 = s.Update(key, "v3", 0);  // unconditional
  ASSERT_TRUE(r3.ok());
  got = s.Get(key);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, "v3");
  EXPECT_EQ(got->create_revision, r1);
  EXPECT_EQ(got->mod_revision, *r3);

  EXPECT_EQ(s.Delete(key, *r2).status().code(), StatusCode::kConflict);
  auto del = s.Delete(key, *r3);
  ASSERT_TRUE(del.ok());
  EXPECT_GT(del->revision, *r3);
  EXPECT_EQ(del->deleted.value, "v3");
  EXPECT_EQ(del->deleted.mod_revision, *r3);
  EXPECT_EQ(s.Get(key).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(s.Delete(key, 0).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(s.CurrentRevision(), del->revision);
  // A re-created key starts a new incarnation.
  Revision r5 = this->MustCreate(key, "again");
  EXPECT_EQ(s.Get(key)->create_revision, r5);
}

TYPED_TEST(StoreContractTest, RevisionsAreOneSharedMonotonicCounter) {
  Store& s = *this->store_;
  EXPECT_EQ(s.CurrentRevision(), this->R(0));
  EXPECT_EQ(this->MustCreate("/nodes/a", "1"), this->R(1));
  EXPECT_EQ(this->MustCreate("/pods/ns/b", "2"), this->R(2));
  EXPECT_EQ(*s.Update("/nodes/a", "3", this->R(1)), this->R(3));
  EXPECT_EQ(s.Create("/nodes/a", "dup").status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s.CurrentRevision(), this->R(3));  // a failed write takes no revision
  EXPECT_EQ(s.Delete("/pods/ns/b", 0)->revision, this->R(4));
}

TYPED_TEST(StoreContractTest, RejectsBadKeys) {
  Store& s = *this->store_;
  EXPECT_EQ(s.Create("pods/x", "v").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Create("", "v").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.Get(std::string("/a\0b", 4)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.CurrentRevision(), this->R(0));
}

TYPED_TEST(StoreContractTest, TxnIsAllOrNothing) {
  Store& s = *this->store_;
  Revision pg = this->MustCreate("/podgroups/ns/g", "{\"running\":0}");
  auto revs = s.Txn({TxnOp::Create("/pods/ns/g-0", "pod"),
                     TxnOp::Update("/podgroups/ns/g", "{\"running\":1}", pg)});
  ASSERT_TRUE(revs.ok()) << revs.status().ToString();
  ASSERT_EQ(revs->size(), 2u);
  // One revision per op (SQLite, memory), or the transaction's one revision for all (etcd).
  EXPECT_GE((*revs)[1], (*revs)[0]);
  EXPECT_GT((*revs)[0], pg);
  // The second op is stale: nothing is written, not even the first op.
  auto failed = s.Txn({TxnOp::Create("/pods/ns/g-1", "pod"),
                       TxnOp::Update("/podgroups/ns/g", "{\"running\":2}", pg)});
  EXPECT_EQ(failed.status().code(), StatusCode::kConflict);
  EXPECT_NE(failed.status().message().find("op 1"), std::string::npos);
  EXPECT_EQ(s.Get("/pods/ns/g-1").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(s.CurrentRevision(), (*revs)[1]);
  // Later ops see earlier ones.
  auto chained =
      s.Txn({TxnOp::Create("/x/a", "1"), TxnOp::Update("/x/a", "2", 0), TxnOp::Delete("/x/a")});
  ASSERT_TRUE(chained.ok()) << chained.status().ToString();
  EXPECT_EQ(s.Get("/x/a").status().code(), StatusCode::kNotFound);
}

TYPED_TEST(StoreContractTest, ListPrefixLimitAndConsistentContinue) {
  Store& s = *this->store_;
  for (const char* n : {"x1", "x2", "x3", "x4", "x5"})
    this->MustCreate(ObjectKey("pods", "a", n), n);
  this->MustCreate(ObjectKey("pods", "a2", "y"), "y");
  this->MustCreate(ClusterKey("podsx", "z"), "z");

  auto page1 = s.List(ResourcePrefix("pods", "a"), 2, "", 0);
  ASSERT_TRUE(page1.ok()) << page1.status().ToString();
  EXPECT_EQ(this->Keys(*page1), (std::vector<std::string>{"/pods/a/x1", "/pods/a/x2"}));
  EXPECT_EQ(page1->continue_key, "/pods/a/x2");
  EXPECT_EQ(page1->revision, s.CurrentRevision());

  // Writes between pages do not show in the continued list.
  this->MustCreate("/pods/a/x0", "new");
  this->MustCreate("/pods/a/x9", "new");
  ASSERT_TRUE(s.Delete("/pods/a/x3", 0).ok());
  ASSERT_TRUE(s.Update("/pods/a/x4", "changed", 0).ok());

  auto page2 = s.List("/pods/a/", 2, page1->continue_key, page1->revision);
  ASSERT_TRUE(page2.ok()) << page2.status().ToString();
  EXPECT_EQ(this->Keys(*page2), (std::vector<std::string>{"/pods/a/x3", "/pods/a/x4"}));
  EXPECT_EQ(page2->items[1].value, "x4");
  EXPECT_EQ(page2->revision, page1->revision);
  auto page3 = s.List("/pods/a/", 2, page2->continue_key, page2->revision);
  ASSERT_TRUE(page3.ok());
  EXPECT_EQ(this->Keys(*page3), (std::vector<std::string>{"/pods/a/x5"}));
  EXPECT_EQ(page3->continue_key, "");

  auto latest = s.List("/pods/a/", 0, "", 0);
  ASSERT_TRUE(latest.ok());
  EXPECT_EQ(this->Keys(*latest),
            (std::vector<std::string>{"/pods/a/x0", "/pods/a/x1", "/pods/a/x2", "/pods/a/x4",
                                      "/pods/a/x5", "/pods/a/x9"}));
  auto all = s.List("/", 0, "", 0);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->items.size(), 8u);
  // An exact page leaves no continue key.
  auto exact = s.List("/podsx/", 1, "", 0);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->items.size(), 1u);
  EXPECT_EQ(exact->continue_key, "");
  EXPECT_EQ(s.List("/pods/", 1, "", s.CurrentRevision() + 5).status().code(),
            StatusCode::kInvalidArgument);
}

TYPED_TEST(StoreContractTest, WatchReplaysHistoryThenLiveEventsInOrder) {
  Store& s = *this->store_;
  Revision r1 = this->MustCreate("/pods/ns/a", "a1");
  this->MustCreate("/nodes/n1", "other prefix");
  Revision r3 = *s.Update("/pods/ns/a", "a2", r1);
  auto w = s.Watch("/pods/", r1);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  this->MustCreate("/pods/ns/b", "b1");
  auto del = s.Delete("/pods/ns/a", 0);
  ASSERT_TRUE(del.ok());

  std::vector<Event> events = DrainNow(**w);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].type, EventType::kModified);
  EXPECT_EQ(events[0].revision, r3);
  EXPECT_EQ(events[0].value, "a2");
  EXPECT_EQ(events[1].type, EventType::kAdded);
  EXPECT_EQ(events[1].key, "/pods/ns/b");
  EXPECT_EQ(events[2].type, EventType::kDeleted);
  EXPECT_EQ(events[2].value, "a2");  // a delete carries the last value
  EXPECT_EQ(events[2].revision, del->revision);
  EXPECT_EQ(events[2].create_revision, r1);
  EXPECT_STREQ(EventTypeName(events[2].type), "DELETED");

  // From revision 0: the whole history, nothing else.
  auto all = s.Watch("/", 0);
  ASSERT_TRUE(all.ok());
  std::vector<Event> history = DrainNow(**all);
  ASSERT_EQ(history.size(), static_cast<size_t>(s.CurrentRevision() - this->R(0)));
  for (size_t i = 0; i < history.size(); ++i) {
    EXPECT_EQ(history[i].revision, this->R(Revision(i + 1)));
  }
  auto none = (*all)->Next(std::chrono::milliseconds(1));
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TYPED_TEST(StoreContractTest, WatchCallbackFormNotifies) {
  Store& s = *this->store_;
  auto w = s.Watch("/pods/", s.CurrentRevision());
  ASSERT_TRUE(w.ok());
  std::atomic<int> notified{0};
  (*w)->SetNotify([&] { notified++; });
  EXPECT_EQ(notified.load(), 0);
  this->MustCreate("/pods/ns/a", "a");
  EXPECT_GE(notified.load(), 1);
  EXPECT_EQ(DrainNow(**w).size(), 1u);
  (*w)->Cancel();
  auto closed = (*w)->Next(kNow);
  EXPECT_EQ(closed.status().code(), StatusCode::kUnavailable);
}

// Visit hands over what List returns, at the same revision, from a continue key, and stops when
// told; an older revision shows that revision's values.
TYPED_TEST(StoreContractTest, VisitSeesWhatListSees) {
  Store& s = *this->store_;
  for (const char* n : {"x1", "x2", "x3"}) this->MustCreate(ObjectKey("pods", "a", n), n);
  this->MustCreate(ObjectKey("pods", "b", "y"), "y");
  const Revision before = s.CurrentRevision();
  ASSERT_TRUE(s.Update("/pods/a/x2", "changed", 0).ok());
  auto visit = [&](const std::string& after, Revision at, size_t stop_after) {
    std::vector<std::string> seen;
    auto rev = s.Visit("/pods/a/", after, at, [&](const KeyValueRef& kv) {
      seen.push_back(std::string(kv.key) + "=" + std::string(kv.value) + "@" +
                     std::to_string(kv.mod_revision - this->R(0)));  // counted from the start
      return seen.size() < stop_after;
    });
    EXPECT_TRUE(rev.ok()) << rev.status().ToString();
    return std::make_pair(rev.ok() ? *rev : -1, seen);
  };
  auto latest = visit("", 0, 100);
  EXPECT_EQ(latest.first, s.CurrentRevision());
  EXPECT_EQ(latest.second, (std::vector<std::string>{"/pods/a/x1=x1@1", "/pods/a/x2=changed@5",
                                                     "/pods/a/x3=x3@3"}));
  EXPECT_EQ(visit("/pods/a/x1", 0, 1).second, (std::vector<std::string>{"/pods/a/x2=changed@5"}));
  auto old = visit("", before, 100);
  EXPECT_EQ(old.first, before);
  EXPECT_EQ(old.second,
            (std::vector<std::string>{"/pods/a/x1=x1@1", "/pods/a/x2=x2@2", "/pods/a/x3=x3@3"}));
}

TYPED_TEST(StoreContractTest, VisitExpectingFewStillSeesEverythingItAsksFor) {
  for (int i = 0; i < 5; ++i) this->MustCreate(ObjectKey("pods", "a", fmt::format("p{}", i)), "v");
  std::vector<std::string> seen;
  auto rev = this->store_->Visit(
      "/pods/a/", "", 0,
      [&](const KeyValueRef& kv) {
        seen.push_back(std::string(kv.key));
        return true;
      },
      /*expected=*/1);
  ASSERT_TRUE(rev.ok()) << rev.status().ToString();
  EXPECT_EQ(seen, (std::vector<std::string>{"/pods/a/p0", "/pods/a/p1", "/pods/a/p2", "/pods/a/p3",
                                            "/pods/a/p4"}));
}

// A list with a small limit reads a small first page: `?limit=1` over 300 large objects read a
// thousand objects' worth (the whole namespace) before.
TEST(StoreVisitTest, TheFirstPageIsWhatTheCallerExpectsPlusOne) {
  class PageRecorder : public MemoryStore {
   public:
    Result<ListResult> List(const std::string& prefix, size_t limit, const std::string& after,
                            Revision at) override {
      limits.push_back(limit);
      return MemoryStore::List(prefix, limit, after, at);
    }
    std::vector<size_t> limits;
  } store;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(store.Create(ObjectKey("pods", "a", fmt::format("p{}", i)), "v").ok());
  }
  size_t visited = 0;
  ASSERT_TRUE(store
                  .Visit(
                      "/pods/a/", "", 0, [&](const KeyValueRef&) { return ++visited < 2; },
                      /*expected=*/1)
                  .ok());
  EXPECT_EQ(store.limits, (std::vector<size_t>{2}));
  store.limits.clear();
  ASSERT_TRUE(store.Visit("/pods/a/", "", 0, [](const KeyValueRef&) { return true; }).ok());
  EXPECT_EQ(store.limits, (std::vector<size_t>{1000}));
}

TYPED_TEST(StoreContractTest, GoneAfterCompactionForWatchAndListContinue) {
  Store& s = *this->store_;
  for (int i = 0; i < 6; ++i) this->MustCreate(fmt::format("/pods/ns/p{}", i), "v");
  auto page1 = s.List("/pods/ns/", 2, "", 0);
  ASSERT_TRUE(page1.ok());
  ASSERT_TRUE(s.Update("/pods/ns/p0", "v2", 0).ok());
  ASSERT_TRUE(s.Delete("/pods/ns/p5", 0).ok());
  const Revision before = s.CurrentRevision();
  ASSERT_TRUE(s.Compact(before - 1).ok());
  EXPECT_EQ(s.CompactedRevision(), before - 1);
  EXPECT_EQ(s.Compact(before + 10).code(), StatusCode::kInvalidArgument);

  EXPECT_EQ(s.Watch("/pods/", before - 2).status().code(), StatusCode::kGone);
  EXPECT_STREQ(StatusCodeName(StatusCode::kGone), "Gone");
  auto cont = s.List("/pods/ns/", 2, page1->continue_key, page1->revision);
  EXPECT_EQ(cont.status().code(), StatusCode::kGone);
  // The compacted revision itself stays readable, and its state is intact.
  auto at = s.List("/pods/ns/", 0, "", before - 1);
  ASSERT_TRUE(at.ok()) << at.status().ToString();
  EXPECT_EQ(at->items.size(), 6u);
  EXPECT_EQ(at->items[0].value, "v2");
  auto w = s.Watch("/pods/", before - 1);
  ASSERT_TRUE(w.ok());
  std::vector<Event> events = DrainNow(**w);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, EventType::kDeleted);
}

TYPED_TEST(StoreContractTest, SlowWatcherIsCutOffWithoutBlockingWriters) {
  this->Reopen(8);
  Store& s = *this->store_;
  auto slow = s.Watch("/pods/", 0);
  ASSERT_TRUE(slow.ok());
  // 50 writes complete on this thread while nobody reads the watcher.
  for (int i = 0; i < 50; ++i) this->MustCreate(fmt::format("/pods/ns/p{}", i), "v");
  auto r = (*slow)->Next(kNow);
  EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted) << r.status().ToString();
  // A new watcher from the current revision works.
  auto fresh = s.Watch("/pods/", s.CurrentRevision());
  ASSERT_TRUE(fresh.ok());
  this->MustCreate("/pods/ns/late", "v");
  EXPECT_EQ(DrainNow(**fresh).size(), 1u);
}

TYPED_TEST(StoreContractTest, ConcurrentWritersGetDistinctRevisionsInWatchOrder) {
  Store& s = *this->store_;
  auto w = s.Watch("/", 0);
  ASSERT_TRUE(w.ok());
  constexpr int kThreads = 8, kPerThread = 25;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        if (!s.Create(fmt::format("/pods/t{}/p{}", t, i), "v").ok()) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(s.CurrentRevision(), this->R(kThreads * kPerThread));
  std::vector<Event> events = DrainNow(**w);
  ASSERT_EQ(events.size(), size_t{kThreads * kPerThread});
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].revision, this->R(Revision(i + 1)));
  }
}

}  // namespace
}  // namespace etna::store
