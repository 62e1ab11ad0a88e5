// Preemption and reclaim carried out through the API (victims marked, then evicted), and the
// configuration from the ConfigMap.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "scheduler/scheduler.h"
#include "scheduler/test_kit.h"

namespace etna::scheduler {
namespace {

using testkit::Kit;
using testkit::WaitFor;

// Victims among pods <prefix>-0..n-1: those with DisruptionTarget (reason `reason`) and a
// deletionTimestamp.
int CountVictims(Kit& kit, const std::string& prefix, int n, const std::string& reason,
                 const std::string& preemptor) {
  int victims = 0;
  for (int i = 0; i < n; ++i) {
    json pod = kit.GetPod(fmt::format("{}-{}", prefix, i));
    if (pod.is_null() || !pod["metadata"].contains("deletionTimestamp")) continue;
    bool marked = false;
    for (const auto& c : pod["status"].value("conditions", json::array())) {
      marked |= c["type"] == api::types::kDisruptionTargetCondition && c["status"] == "True" &&
                c["reason"] == reason &&
                c["message"].get<std::string>().find(preemptor) != std::string::npos;
    }
    EXPECT_TRUE(marked) << pod["status"].dump();
    victims += marked;
  }
  return victims;
}

// The agent's part of an eviction: the pod is gone once its process stopped.
void FinishEvictions(Kit& kit, const std::string& prefix, int n) {
  for (int i = 0; i < n; ++i) {
    std::string name = fmt::format("{}-{}", prefix, i);
    json pod = kit.GetPod(name);
    if (!pod.is_null() && pod["metadata"].contains("deletionTimestamp")) {
      ASSERT_TRUE(kit.rest().Delete(client::Path("pods", "default", name), 0).ok());
    }
  }
}

TEST(EvictionTest, HighPriorityJobPreemptsLowPriorityOne) {
  Kit kit;
  kit.AddNode("n1", 4);
  kit.AddNode("n2", 4);
  // The API server bootstraps the seed's classes: high 100, normal 50, low 10.
  kit.AddGang("low", 8, 1, 1, "default", "low");
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 8; }));
  ASSERT_TRUE(s->RunOnce().ok());
  for (int i = 0; i < 8; ++i) {
    ASSERT_FALSE(kit.NodeOf(fmt::format("low-{}", i)).empty());
    kit.SetRunning(fmt::format("low-{}", i));
  }
  kit.AddGang("high", 2, 2, 1, "default", "high");
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 10; }));
  int victims = 0;
  ASSERT_TRUE(WaitFor([&] {
    EXPECT_TRUE(s->RunOnce().ok());
    victims = CountVictims(kit, "low", 8, "Preempted", "default/high");
    return victims >= 2;
  })) << kit.GetPodGroup("high")["status"].dump();
  EXPECT_EQ(victims, 2);
  FinishEvictions(kit, "low", 8);
  ASSERT_TRUE(WaitFor([&] {
    EXPECT_TRUE(s->RunOnce().ok());
    return !kit.NodeOf("high-0").empty() && !kit.NodeOf("high-1").empty();
  }));
}

// Queue qb's elastic job "hog" holds all 8 GPUs of n1 (both queues deserve 4); qa's gang "want"
// of two arrives, and cycles run until two hog pods are marked Reclaimed and evicted.
void ReclaimTwoFromTheHog(Kit& kit, std::unique_ptr<Scheduler>* scheduler) {
  kit.AddNode("n1", 8);
  kit.AddQueue("qa", {{"weight", 1}, {"deserved", {{"nvidia.com/gpu", 4}}}});
  kit.AddQueue("qb", {{"weight", 1}, {"reclaimable", true}, {"deserved", {{"nvidia.com/gpu", 4}}}});
  kit.AddGang("hog", 8, 1, 1, "qb");
  *scheduler = kit.MakeScheduler();
  Scheduler* s = scheduler->get();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 8; }));
  ASSERT_TRUE(s->RunOnce().ok());
  for (int i = 0; i < 8; ++i) {
    ASSERT_FALSE(kit.NodeOf(fmt::format("hog-{}", i)).empty()) << "hog-" << i;
    kit.SetRunning(fmt::format("hog-{}", i));
  }
  kit.AddGang("want", 2, 2, 1, "qa");
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 10; }));
  int victims = 0;
  ASSERT_TRUE(WaitFor([&] {
    EXPECT_TRUE(s->RunOnce().ok());
    victims = CountVictims(kit, "hog", 8, "Reclaimed", "want");
    return victims >= 2;
  }));
  EXPECT_EQ(victims, 2);
}

TEST(EvictionTest, QueueReclaimsItsDeservedShare) {
  Kit kit;
  std::unique_ptr<Scheduler> s;
  ReclaimTwoFromTheHog(kit, &s);
  ASSERT_FALSE(HasFatalFailure());
  FinishEvictions(kit, "hog", 8);
  ASSERT_TRUE(WaitFor([&] {
    EXPECT_TRUE(s->RunOnce().ok());
    return !kit.NodeOf("want-0").empty() && !kit.NodeOf("want-1").empty();
  }));
  auto qa = kit.rest().Get(client::Path("queues", "", "qa"));
  ASSERT_TRUE(qa.ok());
  EXPECT_EQ((*qa)["status"]["allocated"].value("nvidia.com/gpu", ""), "2") << qa->dump();
}

// The capacity a reclaimer waits for is held for it: a victim's requeued pod (its job is elastic)
// must not take a GPU freed by the first victim while the gang still waits for the second.
TEST(EvictionTest, ReclaimedCapacityIsHeldUntilTheReclaimerBinds) {
  Kit kit;
  std::unique_ptr<Scheduler> s;
  ReclaimTwoFromTheHog(kit, &s);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_TRUE(s->RunOnce().ok());  // the gang waits, pipelined onto the releasing GPUs
  // One victim is gone and its job's replacement arrives; the other victim still releases.
  std::vector<std::string> victims;
  for (int i = 0; i < 8; ++i) {
    std::string name = fmt::format("hog-{}", i);
    if (kit.GetPod(name)["metadata"].contains("deletionTimestamp")) victims.push_back(name);
  }
  ASSERT_EQ(victims.size(), 2u);
  ASSERT_TRUE(kit.rest().Delete(client::Path("pods", "default", victims[0]), 0).ok());
  kit.AddPod("hog-requeued", "hog", 1);
  // 7 hog pods (one releasing), the requeued one and want's 2.
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 10; }));
  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(kit.NodeOf("hog-requeued"), "") << "the requeued pod took the reclaimed GPU";
  ASSERT_TRUE(kit.rest().Delete(client::Path("pods", "default", victims[1]), 0).ok());
  ASSERT_TRUE(WaitFor([&] {
    EXPECT_TRUE(s->RunOnce().ok());
    return !kit.NodeOf("want-0").empty() && !kit.NodeOf("want-1").empty();
  }));
  EXPECT_EQ(kit.NodeOf("hog-requeued"), "");
}

TEST(EvictionTest, ConfigMapWithUnknownPluginIsRejectedByName) {
  Kit kit;
  kit.AddNode("n1", 2);
  json cm = {{"metadata", {{"name", kConfigMapName}}},
             {"data",
              {{kConfigMapKey,
                "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n"
                "  - name: no-such-plugin\n"}}}};
  ASSERT_TRUE(kit.rest().Create(client::Path("configmaps", kConfigMapNamespace), cm).ok());
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return !s->conf_status().ok(); }));
  EXPECT_NE(s->conf_status().message().find("no-such-plugin"), std::string::npos)
      << s->conf_status().ToString();
  // The previous (default) configuration still schedules.
  kit.AddGang("g", 1, 1, 1);
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 1; }));
  ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(kit.NodeOf("g-0"), "n1");
  s->events().Flush();
  bool reported = false;
  auto events = kit.rest().List(client::Path("events", kConfigMapNamespace));
  ASSERT_TRUE(events.ok());
  for (const auto& e : *events) {
    reported |= e["reason"] == "InvalidConfiguration" &&
                e["message"].get<std::string>().find("no-such-plugin") != std::string::npos;
  }
  EXPECT_TRUE(reported);
  // A good one replaces it.
  cm["data"][kConfigMapKey] =
      "actions: \"enqueue, allocate\"\ntiers:\n- plugins:\n  - name: gang\n";
  ASSERT_TRUE(
      kit.rest().Update(client::Path("configmaps", kConfigMapNamespace, kConfigMapName), cm).ok());
  EXPECT_TRUE(WaitFor([&] { return s->conf_status().ok(); }));
}

// What a job lost in its run lives in its PodGroup's status.evictedInRun, so a restarted
// scheduler still holds the job to half of itself: "low" (4 pods, minAvailable 1) loses 2 to
// "high1", which then runs; its victims are re-created pending; a new scheduler then refuses
// "high2" a third.
TEST(EvictionTest, JobLossOfTheRunSurvivesASchedulerRestart) {
  const std::string conf = R"(actions: "enqueue, allocate, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: preemption
    arguments: {preemption.wholeGang: false, preemption.maxClusterFraction: 1.0}
- plugins:
  - name: predicates
)";
  Kit kit;
  kit.AddNode("n1", 4);
  kit.AddGang("low", 4, 1, 1, "default", "low");
  auto s = kit.MakeScheduler(false, conf);
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 4; }));
  ASSERT_TRUE(s->RunOnce().ok());
  for (int i = 0; i < 4; ++i) kit.SetRunning(fmt::format("low-{}", i));
  kit.AddGang("high1", 2, 2, 1, "default", "high");
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 6; }));
  ASSERT_TRUE(WaitFor([&] {
    EXPECT_TRUE(s->RunOnce().ok());
    return CountVictims(kit, "low", 4, "Preempted", "default/high1") >= 2;
  }));
  json lost = kit.GetPodGroup("low")["status"][api::types::kEvictedInRunStatusField];
  EXPECT_EQ(lost["resources"].value("nvidia.com/gpu", ""), "2") << lost.dump();
  EXPECT_FALSE(lost.value("since", "").empty()) << lost.dump();
  FinishEvictions(kit, "low", 4);
  ASSERT_TRUE(WaitFor([&] {
    EXPECT_TRUE(s->RunOnce().ok());
    return !kit.NodeOf("high1-0").empty() && !kit.NodeOf("high1-1").empty();
  }));
  kit.AddPod("low-requeued-0", "low", 1, "low");
  kit.AddPod("low-requeued-1", "low", 1, "low");

  s.reset();
  s = kit.MakeScheduler(false, conf);
  kit.AddGang("high2", 1, 1, 1, "default", "high");
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 7; }));
  for (int cycle = 0; cycle < 3; ++cycle) ASSERT_TRUE(s->RunOnce().ok());
  EXPECT_EQ(CountVictims(kit, "low", 4, "Preempted", "default/high2"), 0)
      << "low already lost half of itself in this run";
  EXPECT_TRUE(kit.NodeOf("high2-0").empty());
}

}  // namespace
}  // namespace etna::scheduler
