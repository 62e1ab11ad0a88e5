// ObjectService's admission lookups answer from caches that follow the store's watch; a
// Namespace or ServiceAccount the watch has not brought yet (written through another server on
// etcd) is read from the store instead of being refused or ignored.
#include "api/server/object_service.h"

#include <gtest/gtest.h>

#include "store/memory_store.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

// A store whose watches never deliver: what a cache sees of writes made after it listed when
// its watch lags behind them.
class WatchNeverDelivers : public store::MemoryStore {
 public:
  Result<std::shared_ptr<store::Watcher>> Watch(const std::string& prefix,
                                                store::Revision from_revision) override {
    (void)from_revision;
    return silent_.Watch(prefix, 0);
  }

 private:
  store::MemoryStore silent_;
};

json Pod(const std::string& name, const std::string& service_account) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}}},
          {"spec",
           {{"serviceAccountName", service_account},
            {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
}

TEST(ObjectServiceTest, ANamespaceOrServiceAccountTheCacheHasNotSeenIsReadFromTheStore) {
  const auto& registry = resources::ResourceRegistry::Default();
  const auto* namespaces = registry.Find("", "v1", "namespaces");
  const auto* pods = registry.Find("", "v1", "pods");
  const auto* accounts = registry.Find("", "v1", "serviceaccounts");
  WatchNeverDelivers store;
  FakeClock clock(1'800'000'000'000);
  ObjectService objects(&store, &registry, &clock);
  ASSERT_TRUE(objects.Create(*namespaces, "", {{"metadata", {{"name", "early"}}}}).ok());
  auto first = objects.Create(*pods, "early", Pod("p", "default"));  // the caches list here
  ASSERT_TRUE(first.ok()) << first.error().message;

  ASSERT_TRUE(objects.Create(*namespaces, "", {{"metadata", {{"name", "late"}}}}).ok());
  ASSERT_TRUE(
      objects
          .Create(*accounts, "late",
                  {{"metadata", {{"name", "quiet"}}}, {"automountServiceAccountToken", false}})
          .ok());
  auto pod = objects.Create(*pods, "late", Pod("p", "quiet"));
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pod->value("/spec/automountServiceAccountToken"_json_pointer, true), false);

  auto missing = objects.Create(*pods, "never-made", Pod("p", "default"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().reason, "NotFound");
}

}  // namespace
}  // namespace etna::api::server
