// PrefixCache: a write under the prefix is seen by the next list (the watch tells of it), a write
// elsewhere keeps the cached objects, and a delete drops the object. Keys are the server's:
// store::ClusterKey for a cluster-scoped kind, so Find looks an object up by its key.
#include "api/server/prefix_cache.h"

#include <gtest/gtest.h>

#include "api/server/stored_object.h"
#include "store/keys.h"
#include "store/memory_store.h"

namespace etna::api::server {
namespace {

std::string Named(const std::string& name) {
  return EncodeStored({{"metadata", {{"name", name}}}});
}

std::vector<std::string> Names(PrefixCache& cache) {
  auto all = cache.List();
  EXPECT_TRUE(all.ok()) << all.status().message();
  std::vector<std::string> out;
  for (const auto& o : *all) out.push_back(o["metadata"]["name"]);
  return out;
}

TEST(PrefixCacheTest, AWriteUnderThePrefixIsSeenByTheNextList) {
  store::MemoryStore store;
  const std::string prefix = store::ResourcePrefix("priorityclasses");
  ASSERT_TRUE(store.Create(store::ClusterKey("priorityclasses", "high"), Named("high")).ok());
  PrefixCache cache(&store, prefix);
  EXPECT_EQ(Names(cache), std::vector<std::string>{"high"});
  ASSERT_TRUE(store.Create(store::ClusterKey("priorityclasses", "low"), Named("low")).ok());
  EXPECT_EQ(Names(cache), (std::vector<std::string>{"high", "low"}));
  ASSERT_TRUE(store.Create(store::ObjectKey("pods", "default", "p"), Named("p")).ok());
  EXPECT_EQ(Names(cache), (std::vector<std::string>{"high", "low"}));
  ASSERT_TRUE(store.Delete(store::ClusterKey("priorityclasses", "high"), 0).ok());
  EXPECT_EQ(Names(cache), std::vector<std::string>{"low"});
  auto low = cache.Find("low");
  ASSERT_TRUE(low.ok() && *low);
  EXPECT_EQ((**low)["metadata"]["name"], "low");
  ASSERT_TRUE(cache.Find("high").ok());
  EXPECT_FALSE(*cache.Find("high")) << "deleted";
}

}  // namespace
}  // namespace etna::api::server
