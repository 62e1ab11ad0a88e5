// CachedStore beyond the contract suite (store_contract_test.cc runs that against it too): what
// it serves from memory, how it stays consistent with writes made beneath it, and its rebuild
// after its watch overflows.
#include "store/cached_store.h"

#include <gtest/gtest.h>

#include "store/memory_store.h"

namespace etna::store {
namespace {

std::vector<std::string> Keys(const ListResult& l) {
  std::vector<std::string> out;
  for (const KeyValue& kv : l.items) out.push_back(kv.key);
  return out;
}

TEST(CachedStoreTest, StartsFromWhatIsBeneathAndFollowsWritesMadeBeneath) {
  MemoryStore beneath(100);
  ASSERT_TRUE(beneath.Create("/pods/a/p1", "v1").ok());
  auto cache = CachedStore::Open(&beneath);
  ASSERT_TRUE(cache.ok()) << cache.status().ToString();
  // Another server's write (here: straight beneath) is seen by the next read: reads wait until
  // the cache has applied the revision current when they began.
  auto r2 = beneath.Create("/pods/a/p2", "v2");
  ASSERT_TRUE(r2.ok());
  auto list = (*cache)->List("/pods/a/", 0, "", 0);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(Keys(*list), (std::vector<std::string>{"/pods/a/p1", "/pods/a/p2"}));
  EXPECT_EQ(list->revision, *r2);
  ASSERT_TRUE(beneath.Delete("/pods/a/p1", 0).ok());
  EXPECT_EQ((*cache)->Get("/pods/a/p1").status().code(), StatusCode::kNotFound);
  auto got = (*cache)->Get("/pods/a/p2");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, "v2");
  EXPECT_EQ(got->mod_revision, *r2);
  EXPECT_EQ((*cache)->AppliedRevision(), beneath.CurrentRevision());
}

TEST(CachedStoreTest, AnOlderPageIsReadBeneathAtItsRevision) {
  MemoryStore beneath(100);
  auto cache = CachedStore::Open(&beneath);
  ASSERT_TRUE(cache.ok());
  for (const char* k : {"/n/a", "/n/b", "/n/c"}) ASSERT_TRUE((*cache)->Create(k, "x").ok());
  auto first = (*cache)->List("/n/", 2, "", 0);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(Keys(*first), (std::vector<std::string>{"/n/a", "/n/b"}));
  // A write after the first page: the continued page still shows the first page's revision.
  ASSERT_TRUE((*cache)->Create("/n/d", "x").ok());
  auto rest = (*cache)->List("/n/", 2, first->continue_key, first->revision);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(Keys(*rest), (std::vector<std::string>{"/n/c"}));
  EXPECT_EQ(rest->revision, first->revision);
}

TEST(CachedStoreTest, RebuildsWhenItsWatchOverflowsAndStaysConsistent) {
  MemoryStore beneath(2);  // each watcher queues at most 2 events
  auto cache = CachedStore::Open(&beneath);
  ASSERT_TRUE(cache.ok());
  std::vector<TxnOp> ops;
  for (int i = 0; i < 5; ++i) ops.push_back(TxnOp::Create("/k/" + std::to_string(i), "v"));
  ASSERT_TRUE(beneath.Txn(ops).ok());           // 5 events at once: the cache's watch overflows
  auto list = (*cache)->List("/k/", 0, "", 0);  // beneath while rebuilding, or the rebuilt cache
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), 5u);
  for (int i = 0; i < 200 && (*cache)->Rebuilds() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ((*cache)->Rebuilds(), 1u);
  ASSERT_TRUE((*cache)->Update("/k/0", "w", 0).ok());
  auto got = (*cache)->Get("/k/0");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->value, "w");
  EXPECT_EQ((*cache)->List("/k/", 0, "", 0)->items.size(), 5u);
}

}  // namespace
}  // namespace etna::store
