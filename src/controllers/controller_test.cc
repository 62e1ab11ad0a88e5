// The synchronous seam of Controller (SyncOnce, SyncUntilIdle) that the controllers' tests
// drive them with: informers listed and keys reconciled on the caller's thread.
#include "controllers/controller.h"

#include <map>
#include <thread>

#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

using nlohmann::json;

// Reconciles ConfigMaps: counts each key's reconciles, failing the first `failures` of each.
class ConfigMapCounter : public Controller {
 public:
  ConfigMapCounter(ControllerOptions options, int failures)
      : Controller("configmap-counter", std::move(options)), failures_(failures) {
    Watch(client::Path("configmaps"));
  }
  std::map<std::string, int> reconciles;
  std::thread::id reconciled_on;

 protected:
  Status Reconcile(const std::string& key) override {
    reconciled_on = std::this_thread::get_id();
    if (++reconciles[key] <= failures_) return Status::Unavailable("not yet");
    return Status::Ok();
  }

 private:
  int failures_;
};

class ControllerSyncTest : public testing::ControllerTest {
 protected:
  void MakeConfigMap(const std::string& name, const std::string& value) {
    MustCreate("configmaps", "default",
               {{"metadata", {{"name", name}}}, {"data", {{"value", value}}}});
  }
};

TEST_F(ControllerSyncTest, SyncOnceReconcilesWhatChangedOnTheCallersThread) {
  ConfigMapCounter c(Options(), 0);
  MakeConfigMap("a", "1");
  MakeConfigMap("b", "1");
  EXPECT_EQ(c.SyncOnce(), 2);
  EXPECT_EQ(c.reconciled_on, std::this_thread::get_id());
  EXPECT_EQ(c.SyncOnce(), 0);  // nothing changed
  ASSERT_TRUE(
      rest()
          .MergePatch(client::Path("configmaps", "default", "b"), {{"data", {{"value", "2"}}}})
          .ok());
  EXPECT_EQ(c.SyncOnce(), 1);
  EXPECT_EQ(c.reconciles, (std::map<std::string, int>{{"default/a", 1}, {"default/b", 2}}));
}

TEST_F(ControllerSyncTest, AFailedReconcileIsRetriedAtOnceByTheNextSyncOnce) {
  ConfigMapCounter c(Options(), 1);
  MakeConfigMap("a", "1");
  EXPECT_TRUE(SyncUntilIdle({&c}));
  EXPECT_EQ(c.reconciles["default/a"], 2);
}

TEST_F(ControllerSyncTest, SyncUntilIdleIsFalseWhenAControllerNeverSettles) {
  ConfigMapCounter c(Options(), 1'000'000);
  MakeConfigMap("a", "1");
  EXPECT_FALSE(SyncUntilIdle({&c}, 5));
  EXPECT_EQ(c.reconciles["default/a"], 5);
}

}  // namespace
}  // namespace etna::controllers
