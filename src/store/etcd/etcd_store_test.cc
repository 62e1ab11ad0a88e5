// EtcdStore beyond the store contract: several stores on one etcd, one revision per
// transaction, watches that start before the in-memory window, compaction, losing a member.
#include "store/etcd/etcd_store.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "store/etcd/etcd_backend_testing.h"
#include "store/store_testing.h"

namespace etna::store {
namespace {

using testing::EtcdCluster;
using testing::TempDir;

constexpr std::chrono::seconds kWait{20};

class EtcdStoreTest : public ::testing::Test {
 protected:
  void StartEtcd(int members) {
    auto started = EtcdCluster::Start(members, dir_.path() + "/etcd", /*fsync=*/false);
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    etcd_ = std::move(started).value();
  }
  std::unique_ptr<EtcdStore> Open(size_t history_events = 20000) {
    return testing::OpenTestEtcdStore(*etcd_, 10000, history_events);
  }
  // The next event within kWait, or a failure.
  static Event NextEvent(Watcher& w) {
    auto e = w.Next(std::chrono::duration_cast<std::chrono::milliseconds>(kWait));
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    if (!e.ok() || !e->has_value()) {
      ADD_FAILURE() << "no event within " << kWait.count() << " s";
      return {};
    }
    return **e;
  }

  TempDir dir_;
  std::unique_ptr<EtcdCluster> etcd_;
};

TEST_F(EtcdStoreTest, TwoStoresOnOneEtcdSeeEachOthersWritesInOrder) {
  StartEtcd(1);
  auto a = Open();
  auto b = Open();
  ASSERT_TRUE(a && b);
  auto watch = b->Watch("/pods/", b->CurrentRevision());
  ASSERT_TRUE(watch.ok());

  auto r1 = a->Create("/pods/default/p1", "one");
  ASSERT_TRUE(r1.ok());
  auto r2 = b->Update("/pods/default/p1", "two", *r1);
  ASSERT_TRUE(r2.ok()) << r2.status().ToString();
  auto stale = a->Update("/pods/default/p1", "three", *r1);
  EXPECT_EQ(stale.status().code(), StatusCode::kConflict);

  Event e1 = NextEvent(**watch);
  EXPECT_EQ(e1.type, EventType::kAdded);
  EXPECT_EQ(e1.revision, *r1);
  Event e2 = NextEvent(**watch);
  EXPECT_EQ(e2.type, EventType::kModified);
  EXPECT_EQ(e2.value, "two");
  EXPECT_EQ(e2.revision, *r2);

  // Each store's current revision is etcd's own, whichever server wrote last.
  EXPECT_EQ(a->CurrentRevision(), *r2);
  EXPECT_EQ(b->CurrentRevision(), *r2);
  auto got = a->Get("/pods/default/p1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, "two");
  EXPECT_EQ(got->mod_revision, *r2);
}

TEST_F(EtcdStoreTest, TransactionOpsShareTheTransactionsRevision) {
  StartEtcd(1);
  auto s = Open();
  ASSERT_TRUE(s);
  auto r =
      s->Txn({TxnOp::Create("/podgroups/default/j", "pg"), TxnOp::Create("/pods/default/j-0", "p0"),
              TxnOp::Create("/pods/default/j-1", "p1")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0], (*r)[1]);
  EXPECT_EQ((*r)[1], (*r)[2]);

  // A failing op writes nothing and names its index.
  auto failed = s->Txn(
      {TxnOp::Create("/pods/default/j-2", "p2"), TxnOp::Create("/pods/default/j-0", "again")});
  EXPECT_EQ(failed.status().code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(s->Get("/pods/default/j-2").status().code(), StatusCode::kNotFound);

  // A watcher from before the transaction gets every op's event.
  auto watch = s->Watch("/pods/", (*r)[0] - 1);
  ASSERT_TRUE(watch.ok());
  EXPECT_EQ(NextEvent(**watch).key, "/pods/default/j-0");
  EXPECT_EQ(NextEvent(**watch).key, "/pods/default/j-1");
}

TEST_F(EtcdStoreTest, WatchBeforeTheInMemoryWindowReadsEtcdsHistory) {
  StartEtcd(1);
  auto s = Open(/*history_events=*/4);
  ASSERT_TRUE(s);
  const Revision start = s->CurrentRevision();
  std::vector<Revision> written;
  for (int i = 0; i < 12; ++i) {
    auto r = s->Create(fmt::format("/nodes/n{:02}", i), "v");
    ASSERT_TRUE(r.ok());
    written.push_back(*r);
  }
  auto watch = s->Watch("/nodes/", start);
  ASSERT_TRUE(watch.ok()) << watch.status().ToString();
  for (int i = 0; i < 12; ++i) {
    Event e = NextEvent(**watch);
    EXPECT_EQ(e.key, fmt::format("/nodes/n{:02}", i));
    EXPECT_EQ(e.revision, written[i]);
  }
  // Then it goes on with live events.
  auto live = s->Create("/nodes/n99", "v");
  ASSERT_TRUE(live.ok());
  EXPECT_EQ(NextEvent(**watch).revision, *live);
}

TEST_F(EtcdStoreTest, CompactionPolicyCompactsWhatWasCurrentOneRoundEarlier) {
  StartEtcd(1);
  auto s = Open();
  ASSERT_TRUE(s);
  auto first = s->Create("/nodes/a", "1");
  ASSERT_TRUE(first.ok());
  // The first round only records the revision; nothing is compacted yet.
  ASSERT_TRUE(s->RunCompactionPolicy().ok());
  EXPECT_LT(s->CompactedRevision(), *first);
  auto second = s->Update("/nodes/a", "2", 0);
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(s->RunCompactionPolicy().ok());
  const Revision compacted = s->CompactedRevision();
  EXPECT_GE(compacted, *first);
  EXPECT_LT(compacted, *second);
  // Past compaction: Gone, as kube-apiserver answers 410.
  EXPECT_EQ(s->Watch("/nodes/", *first - 1).status().code(), StatusCode::kGone);
  EXPECT_EQ(s->List("/nodes/", 0, "", *first - 1).status().code(), StatusCode::kGone);
  // A second server sharing the etcd agrees on the same compaction key.
  auto other = Open();
  ASSERT_TRUE(other);
  ASSERT_TRUE(other->RunCompactionPolicy().ok());
  EXPECT_GE(other->CompactedRevision(), compacted);
}

TEST_F(EtcdStoreTest, LosingOneOfThreeMembersIsInvisible) {
  StartEtcd(3);
  auto s = Open();
  ASSERT_TRUE(s);
  auto watch = s->Watch("/pods/", s->CurrentRevision());
  ASSERT_TRUE(watch.ok());
  std::vector<Revision> acked;
  for (int i = 0; i < 30; ++i) {
    if (i == 10) etcd_->Kill(0);  // the first endpoint, the one the client started on
    if (i == 20) {
      ASSERT_TRUE(etcd_->Restart(0).ok());
    }
    auto r = s->Create(fmt::format("/pods/default/p{:02}", i), "v");
    ASSERT_TRUE(r.ok()) << "write " << i << ": " << r.status().ToString();
    acked.push_back(*r);
  }
  // Every acknowledged write is there once, and the watch saw each exactly once, in order.
  auto list = s->List("/pods/", 0, "", 0);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 30u);
  for (int i = 0; i < 30; ++i) {
    Event e = NextEvent(**watch);
    EXPECT_EQ(e.key, fmt::format("/pods/default/p{:02}", i));
    EXPECT_EQ(e.revision, acked[i]);
  }
  auto extra = (*watch)->Next(std::chrono::milliseconds(0));
  ASSERT_TRUE(extra.ok());
  EXPECT_FALSE(extra->has_value());
}

KeyValue Kv(const std::string& key, const std::string& value, Revision mod) {
  KeyValue kv;
  kv.key = key;
  kv.value = value;
  kv.mod_revision = mod;
  return kv;
}

// A multi-key write whose member died with it is judged by what its keys hold now.
TEST(JudgeLostTxnTest, AppliedUnappliedAndUntellable) {
  const std::map<std::string, std::optional<KeyValue>> before = {
      {"/a", Kv("/a", "a1", 5)}, {"/b", std::nullopt}, {"/c", Kv("/c", "c1", 6)}};
  // Update /a, create /b, delete /c.
  const std::map<std::string, std::optional<std::string>> planned = {
      {"/a", "a2"}, {"/b", "b1"}, {"/c", std::nullopt}};
  auto applied =
      JudgeLostTxn(before, planned,
                   {{"/a", Kv("/a", "a2", 9)}, {"/b", Kv("/b", "b1", 9)}, {"/c", std::nullopt}});
  EXPECT_EQ(applied.verdict, LostTxnVerdict::kApplied);
  EXPECT_EQ(applied.revision, 9);
  auto untouched = JudgeLostTxn(before, planned, before);
  EXPECT_EQ(untouched.verdict, LostTxnVerdict::kNotApplied);
  // Another writer changed /a after us, or wrote the same keys at other revisions: no telling.
  EXPECT_EQ(
      JudgeLostTxn(before, planned,
                   {{"/a", Kv("/a", "a3", 10)}, {"/b", Kv("/b", "b1", 9)}, {"/c", std::nullopt}})
          .verdict,
      LostTxnVerdict::kUnknown);
  EXPECT_EQ(
      JudgeLostTxn(before, planned,
                   {{"/a", Kv("/a", "a2", 9)}, {"/b", Kv("/b", "b1", 11)}, {"/c", std::nullopt}})
          .verdict,
      LostTxnVerdict::kUnknown);
  // Deletes only: gone keys do not say who deleted them.
  EXPECT_EQ(JudgeLostTxn(before, {{"/c", std::nullopt}}, {{"/c", std::nullopt}}).verdict,
            LostTxnVerdict::kUnknown);
}

}  // namespace
}  // namespace etna::store
