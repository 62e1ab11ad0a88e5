// The agent's fence: cut off from the API for longer than its lease minus the margin (on its
// monotonic clock, a FakeClock here), it stops its node's pods — except those annotated
// etna.io/survive-partition — and never starts them again; back online, the fenced pods are
// reported Failed (NodeFenced) and new pods run.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <mutex>
#include <set>

#include "agent/agent_test_fixture.h"
#include "api/types/well_known.h"

namespace etna::agent::testing {
namespace {

// Transports that fail every request while the partition is cut, and end the watches in
// progress when it is cut (the informer lists again once it heals).
class Partition {
 public:
  client::TransportFactory Wrap(client::TransportFactory inner) {
    return [this, inner] { return std::make_unique<Cuttable>(this, inner()); };
  }
  void Cut() {
    std::lock_guard lock(mu_);
    cut_ = true;
    for (client::Transport* t : open_) t->Cancel();
  }
  void Heal() {
    std::lock_guard lock(mu_);
    cut_ = false;
    for (client::Transport* t : open_) t->Resume();
  }

 private:
  class Cuttable : public client::ForwardingTransport {
   public:
    Cuttable(Partition* p, std::unique_ptr<client::Transport> inner)
        : ForwardingTransport(std::move(inner)), p_(p) {
      std::lock_guard lock(p_->mu_);
      p_->open_.insert(&this->inner());
      if (p_->cut_) this->inner().Cancel();
    }
    ~Cuttable() override {
      std::lock_guard lock(p_->mu_);
      p_->open_.erase(&inner());
    }
    Result<net::http::ClientResponse> Do(std::string_view method, std::string_view target,
                                         std::string_view body,
                                         std::string_view content_type) override {
      if (p_->cut_) return Status::Unavailable("partitioned");
      return ForwardingTransport::Do(method, target, body, content_type);
    }
    Result<net::http::ClientResponse> DoWithHeaders(
        std::string_view method, std::string_view target, std::string_view body,
        std::string_view content_type,
        const std::vector<std::pair<std::string, std::string>>& headers) override {
      if (p_->cut_) return Status::Unavailable("partitioned");
      return ForwardingTransport::DoWithHeaders(method, target, body, content_type, headers);
    }
    Result<int> Watch(const std::string& target,
                      const std::function<void(std::string_view)>& on_line) override {
      if (p_->cut_) return Status::Unavailable("partitioned");
      return ForwardingTransport::Watch(target, on_line);
    }
    void Resume() override {
      if (!p_->cut_) ForwardingTransport::Resume();
    }

   private:
    Partition* p_;
  };

  std::mutex mu_;
  std::atomic<bool> cut_{false};
  std::set<client::Transport*> open_;
};

pid_t PidIn(const std::string& file) {
  std::string text = TextOrEmpty(file);
  return text.empty() ? 0 : std::stoi(text);
}

// The partition and the agent's monotonic clock outlive the agent (TearDown stops it).
class AgentFenceTest : public AgentTest {
 protected:
  Partition partition;
  FakeClock monotonic{1'000'000};
};

TEST_F(AgentFenceTest, CutOffFromTheApiItStopsItsPodsBeforeTheLeaseCouldLapse) {
  AgentOptions o = Options("n1");  // lease 2 s: the fence goes up 1.5 s after the last renewal
  o.transports = partition.Wrap(o.transports);
  o.monotonic_clock = &monotonic;
  StartAgent(std::move(o));
  // "$$$$": Kubernetes' expansion turns "$$" into "$", so the shell sees "$$" (its pid).
  CreatePod("train", "n1", "echo $$$$ >> " + dir_ + "/train; exec sleep 60", "OnFailure");
  CreatePod("serve", "n1", "echo $$$$ >> " + dir_ + "/serve; exec sleep 60", "Always",
            json::array(), {{api::types::kSurvivePartitionAnnotation, "true"}});
  ASSERT_TRUE(WaitFor([&] {
    return Phase("train") == "Running" && Phase("serve") == "Running" &&
           PidIn(dir_ + "/train") > 0 && PidIn(dir_ + "/serve") > 0;
  }));
  const pid_t train = PidIn(dir_ + "/train"), serve = PidIn(dir_ + "/serve");
  pids_to_kill_ = {train, serve};

  partition.Cut();
  monotonic.Advance(1'600);  // no renewal can have succeeded since the cut
  EXPECT_TRUE(WaitFor([&] { return kill(train, 0) != 0; })) << "the fence stops the pod";
  EXPECT_EQ(kill(serve, 0), 0) << "a pod that survives partitions keeps running";

  // Meanwhile the API binds a new pod to the node (as if the node were back): it runs only
  // once the agent is back online, and the fenced pod is reported, never started again.
  CreatePod("next", "n1", "exec sleep 60");
  partition.Heal();
  ASSERT_TRUE(WaitFor([&] { return Phase("next") == "Running"; }));
  ASSERT_TRUE(WaitFor([&] { return Phase("train") == "Failed"; }));
  json status = Pod("train")["status"];
  EXPECT_EQ(status.value("reason", ""), api::types::kNodeFencedReason);
  EXPECT_NE(status.value("message", "").find("could not renew its Lease"), std::string::npos)
      << status.dump();
  EXPECT_EQ(TextOrEmpty(dir_ + "/train"), std::to_string(train) + "\n") << "started once";
  EXPECT_EQ(TextOrEmpty(dir_ + "/serve"), std::to_string(serve) + "\n") << "never stopped";
  EXPECT_EQ(Phase("serve"), "Running");
}

TEST_F(AgentTest, AFenceMarginOfTheWholeLeaseIsRefusedByName) {
  AgentOptions o = Options("n1");
  o.fence_margin = std::chrono::seconds(2);
  Agent agent(std::move(o));
  Status s = agent.Start();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("fence margin"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace etna::agent::testing
