// The synchronous seam of Controller (SyncOnce, SyncUntilIdle) that the controllers' tests
// drive them with: informers listed and keys reconciled on the caller's thread.
#include "controllers/controller.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
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

// Reconciles ConfigMaps on started workers; each reconcile waits (up to a bound) until another
// one runs beside it, and records how many ran at once and whether a key ever overlapped itself.
class RendezvousReconciler : public Controller {
 public:
  explicit RendezvousReconciler(ControllerOptions options)
      : Controller("rendezvous", std::move(options)) {
    Watch(client::Path("configmaps"));
  }
  ~RendezvousReconciler() override { Stop(); }
  std::mutex mu;
  std::condition_variable cv;
  int in_flight = 0, most_at_once = 0, done = 0;
  std::set<std::string> running;
  bool key_overlapped_itself = false;

 protected:
  Status Reconcile(const std::string& key) override {
    std::unique_lock lock(mu);
    key_overlapped_itself = key_overlapped_itself || !running.insert(key).second;
    most_at_once = std::max(most_at_once, ++in_flight);
    cv.notify_all();
    cv.wait_for(lock, std::chrono::seconds(10), [&] { return most_at_once >= 2; });
    running.erase(key);
    --in_flight;
    ++done;
    cv.notify_all();
    return Status::Ok();
  }
};

TEST_F(ControllerSyncTest, SeveralWorkersReconcileDifferentKeysAtOnceButNeverOneKeyTwice) {
  ControllerOptions options = Options();
  options.workers = 2;
  RendezvousReconciler c(options);
  MakeConfigMap("a", "1");
  MakeConfigMap("b", "1");
  ASSERT_TRUE(c.Start());
  c.queue().Add("default/a");  // again while it may be running: never beside itself
  {
    std::unique_lock lock(c.mu);
    ASSERT_TRUE(c.cv.wait_for(lock, std::chrono::seconds(30), [&] { return c.done >= 2; }));
  }
  c.Stop();
  EXPECT_EQ(c.most_at_once, 2);
  EXPECT_FALSE(c.key_overlapped_itself);
}

}  // namespace
}  // namespace etna::controllers
