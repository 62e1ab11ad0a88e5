// LeaderElector against the real REST engine, with time driven by hand.
#include "client/leader_election.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "client/testing/in_process_api.h"

namespace etna::client {
namespace {

class LeaderElectionTest : public ::testing::Test {
 protected:
  LeaderElectionOptions Options(const std::string& identity) {
    LeaderElectionOptions o;
    o.lease_name = "etna-scheduler";
    o.identity = identity;
    return o;
  }
  nlohmann::json Lease() {
    auto got = api_.rest().Get(Path("leases", "kube-system", "etna-scheduler"));
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    return got.ok() ? *got : nlohmann::json();
  }

  testing::InProcessApi api_;
  FakeClock clock_;
};

TEST_F(LeaderElectionTest, StandbyTakesOverOnlyAfterSeeingTheLeaseUnchangedForItsDuration) {
  LeaderElector a(&api_.rest(), Options("a"), &clock_);
  LeaderElector b(&api_.rest(), Options("b"), &clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew(clock_.NowMs()));
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "a");
  EXPECT_EQ(Lease()["spec"]["leaseDurationSeconds"], 15);
  EXPECT_EQ(Lease()["spec"]["leaseTransitions"], 0);

  // While a renews, b never takes it, however long it waits.
  for (int i = 0; i < 20; ++i) {
    clock_.Advance(2000);
    EXPECT_FALSE(b.TryAcquireOrRenew(clock_.NowMs()));
    ASSERT_TRUE(a.TryAcquireOrRenew(clock_.NowMs()));
  }
  EXPECT_EQ(b.Holder(), "a");

  // a stops renewing: b sees the same record for 15 s, counted from when it first saw it.
  clock_.Advance(2000);
  EXPECT_FALSE(b.TryAcquireOrRenew(clock_.NowMs()));
  clock_.Advance(12000);
  EXPECT_FALSE(b.TryAcquireOrRenew(clock_.NowMs()));
  clock_.Advance(3000);
  EXPECT_TRUE(b.TryAcquireOrRenew(clock_.NowMs()));
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "b");
  EXPECT_EQ(Lease()["spec"]["leaseTransitions"], 1);

  // a comes back: it sees b's record as new and does not take it back.
  EXPECT_FALSE(a.TryAcquireOrRenew(clock_.NowMs()));
  EXPECT_EQ(a.Holder(), "b");
}

TEST_F(LeaderElectionTest, ReleaseLetsTheStandbyTakeOverAtOnce) {
  LeaderElector a(&api_.rest(), Options("a"), &clock_);
  LeaderElector b(&api_.rest(), Options("b"), &clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew(clock_.NowMs()));
  EXPECT_FALSE(b.TryAcquireOrRenew(clock_.NowMs()));
  a.Release();
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "");
  EXPECT_TRUE(b.TryAcquireOrRenew(clock_.NowMs()));
  // Releasing what one does not hold changes nothing.
  a.Release();
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "b");
}

TEST_F(LeaderElectionTest, TwoCandidatesRacingForAFreeLeaseGetOneLeader) {
  LeaderElector a(&api_.rest(), Options("a"), &clock_);
  LeaderElector b(&api_.rest(), Options("b"), &clock_);
  ASSERT_TRUE(a.TryAcquireOrRenew(clock_.NowMs()));
  a.Release();
  // Both read the released Lease; the second write carries a stale resourceVersion.
  api_.ConflictNext("PUT", "/leases/etna-scheduler");
  EXPECT_FALSE(b.TryAcquireOrRenew(clock_.NowMs()));
  EXPECT_TRUE(a.TryAcquireOrRenew(clock_.NowMs()));
  EXPECT_FALSE(b.TryAcquireOrRenew(clock_.NowMs()));
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "a");
}

TEST_F(LeaderElectionTest, TheHolderStopsBeforeAStandbyCouldTakeOver) {
  LeaderElector a(&api_.rest(), Options("a"), &clock_);
  const TimeMs renewed = clock_.NowMs();
  EXPECT_FALSE(a.DeadlinePassed(renewed, renewed + 9999));
  EXPECT_TRUE(a.DeadlinePassed(renewed, renewed + 10000));
  EXPECT_LT(a.options().renew_deadline, a.options().lease_duration);
}

// Holds the first Lease update sent after Hold() until Release(), as an etcd that lost its
// leader holds a write for seconds; counts the updates that went through meanwhile.
class HoldingTransport : public ForwardingTransport {
 public:
  using ForwardingTransport::ForwardingTransport;
  Result<net::http::ClientResponse> Do(std::string_view method, std::string_view target,
                                       std::string_view body,
                                       std::string_view content_type) override {
    if (method == "PUT") {
      std::unique_lock lock(mu_);
      if (hold_ && !holding_) {
        holding_ = true;
        cv_.wait(lock, [&] { return released_; });
      } else if (holding_) {
        ++passed_while_held_;
        cv_.notify_all();
      }
    }
    return ForwardingTransport::Do(method, target, body, content_type);
  }
  void Hold() {
    std::lock_guard lock(mu_);
    hold_ = true;
  }
  // Waits (up to 30 s) until `count` updates have passed the held one.
  bool AwaitPassed(int count) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30),
                        [&] { return passed_while_held_ >= count; });
  }
  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool hold_ = false, holding_ = false, released_ = false;
  int passed_while_held_ = 0;
};

TEST_F(LeaderElectionTest, ALeaderKeepsRenewingWhileOneRenewalHangs) {
  auto owned = std::make_unique<HoldingTransport>(api_.Factory()());
  HoldingTransport* transport = owned.get();
  RestClient rest(transport);
  LeaderElectionOptions o = Options("a");
  o.lease_duration = std::chrono::milliseconds(1500);
  o.renew_deadline = std::chrono::milliseconds(1000);
  o.retry_period = std::chrono::milliseconds(50);
  SteadyClock clock;
  LeaderElector a(&rest, o, &clock);
  std::atomic<bool> started{false}, stopped{false};
  std::thread run([&] { EXPECT_TRUE(a.Run([&] { started = true; }, [&] { stopped = true; })); });
  transport->Hold();
  // 40 renewals of 50 ms each carry the leader twice past its 1 s renew deadline: it goes on
  // leading only because each was sent while the held one still hung.
  const bool passed = transport->AwaitPassed(40);
  const bool leading = a.Leading(), stopped_early = stopped;
  transport->Release();
  EXPECT_TRUE(passed);
  EXPECT_TRUE(started);
  EXPECT_TRUE(leading);
  EXPECT_FALSE(stopped_early);
  a.Stop();
  run.join();
  EXPECT_TRUE(stopped);
  EXPECT_EQ(Lease()["spec"]["holderIdentity"], "");
}

TEST(LeaderElectionOptionsTest, RefusesDurationsThatCannotBeSafe) {
  LeaderElectionOptions o;
  o.lease_name = "x";
  EXPECT_TRUE(ValidateLeaderElection(o).ok());
  o.renew_deadline = o.lease_duration;
  EXPECT_NE(ValidateLeaderElection(o).message().find("--leader-elect-lease-duration"),
            std::string::npos);
  o.renew_deadline = std::chrono::milliseconds(2000);
  EXPECT_NE(ValidateLeaderElection(o).message().find("--leader-elect-renew-deadline"),
            std::string::npos);
  o.lease_name = "";
  EXPECT_NE(ValidateLeaderElection(o).message().find("--leader-elect-resource-name"),
            std::string::npos);
}

}  // namespace
}  // namespace etna::client
