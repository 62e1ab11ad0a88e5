// Tests of the preempt and reclaim actions (one victim search) and the seed's eviction rules.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sched/builtins.h"
#include "sched/framework/cycle.h"
#include "sched/framework/session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::ClusterBuilder;
using testkit::Evicted;
using testkit::FindJob;
using testkit::NominationMap;

// Test-only queue share: a queue above its `deserved` may be reclaimed from (one candidate at a
// time, down to deserved); a queue may reclaim while it stays within its `deserved`.
class TestSharePlugin : public Plugin {
 public:
  std::string_view name() const override { return "testshare"; }
  void OnSessionOpen(Session& s) override {
    s.AddReclaimableFn([&s](const Task&, const std::vector<TaskIdx>& candidates, EvictionScope) {
      std::map<QueueIdx, ResourceVector> allocated;
      std::vector<TaskIdx> allowed;
      for (TaskIdx ti : candidates) {
        const Task& v = s.task(ti);
        QueueIdx q = s.job(v.job).queue;
        auto [it, fresh] = allocated.try_emplace(q, s.queue(q).allocated);
        if (s.queue(q).deserved.Allows(it->second)) continue;  // not above its share
        it->second -= v.request;
        allowed.push_back(ti);
      }
      return std::optional<std::vector<TaskIdx>>(std::move(allowed));
    });
    s.AddPreemptiveFn(
        [](const Queue& q, const Task& t) { return q.deserved.Allows(q.allocated + t.request); });
  }
};

// Stand-in for the node area's `conformance` plugin when it is not registered in this build:
// kube-system pods and system-critical priority classes are never victims.
class TestConformancePlugin : public Plugin {
 public:
  std::string_view name() const override { return "conformance"; }
  void OnSessionOpen(Session& s) override {
    auto victims = [&s](const Task&, const std::vector<TaskIdx>& candidates, EvictionScope) {
      std::vector<TaskIdx> allowed;
      for (TaskIdx ti : candidates) {
        const Task& v = s.task(ti);
        if (v.ns == "kube-system" || v.priority_class == "system-cluster-critical" ||
            v.priority_class == "system-node-critical") {
          continue;
        }
        allowed.push_back(ti);
      }
      return std::optional<std::vector<TaskIdx>>(std::move(allowed));
    };
    s.AddPreemptableFn(victims);
    s.AddReclaimableFn(victims);
  }
};

// Test-only: records the scope of every eviction vote and the minAvailable of each candidate's
// job as the vote sees it; allows every candidate.
struct ScopeRecord {
  EvictionScope scope;
  std::vector<int32_t> min_available;
};
std::vector<ScopeRecord>& RecordedScopes() {
  static std::vector<ScopeRecord> records;
  return records;
}
class TestScopeRecorderPlugin : public Plugin {
 public:
  std::string_view name() const override { return "testscope"; }
  void OnSessionOpen(Session& s) override {
    s.AddPreemptableFn(
        [&s](const Task&, const std::vector<TaskIdx>& candidates, EvictionScope scope) {
          ScopeRecord r{scope, {}};
          for (TaskIdx ti : candidates)
            r.min_available.push_back(s.job(s.task(ti).job).min_available);
          RecordedScopes().push_back(std::move(r));
          return std::optional<std::vector<TaskIdx>>(candidates);
        });
  }
};

const Registry& TestRegistry() {
  static const Registry* registry = [] {
    auto* r = new Registry();
    RegisterBuiltins(*r);
    if (!r->HasPlugin("conformance")) {
      r->AddPlugin("conformance", [](PluginBuildContext&) -> Result<std::unique_ptr<Plugin>> {
        return std::unique_ptr<Plugin>(new TestConformancePlugin());
      });
    }
    r->AddPlugin("testshare", [](PluginBuildContext&) -> Result<std::unique_ptr<Plugin>> {
      return std::unique_ptr<Plugin>(new TestSharePlugin());
    });
    r->AddPlugin("testscope", [](PluginBuildContext&) -> Result<std::unique_ptr<Plugin>> {
      return std::unique_ptr<Plugin>(new TestScopeRecorderPlugin());
    });
    return r;
  }();
  return *registry;
}

// A configuration with `actions`, the standard plugins and the preemption plugin's arguments.
std::string Conf(std::string_view actions, std::string_view preemption_args = "",
                 std::string_view priority_flags = "") {
  return fmt::format(R"(
actions: "{}"
tiers:
- plugins:
  - name: priority
{}
  - name: gang
  - name: conformance
  - name: testshare
  - name: preemption
    arguments: {{{}}}
)",
                     actions, priority_flags, preemption_args);
}

Decision RunConf(const Snapshot& s, const std::string& yaml) {
  return testkit::ScheduleWith(s, yaml, TestRegistry());
}

using Names = std::vector<std::string>;
constexpr char kNoLimits[] = "preemption.maxClusterFraction: 1.0, preemption.maxJobFraction: 1.0";

TEST(VictimSearchTest, Volcano5022_EvictionsDiscardedWhenPreemptorStillDoesNotFit) {
  struct Case {
    const char* name;
    bool second_node_has_victims;
    Names evicted;
  };
  for (const Case& c : std::vector<Case>{
           {"second task finds no victims: everything discarded", false, {}},
           {"both tasks find victims: committed",
            true,
            {"low-w-0", "low-w-1", "low-w-2", "low-w-3", "low2-w-0", "low2-w-1", "low2-w-2",
             "low2-w-3"}},
       }) {
    SCOPED_TRACE(c.name);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=32").Gpus(8);
    b.Node("n2").Resources("cpu=32").Gpus(8);
    b.Job("low").Priority(10).MinAvailable(1).Running("w", 8, "nvidia.com/gpu=1", "n1");
    if (c.second_node_has_victims) {
      b.Job("low2").Priority(10).MinAvailable(1).Running("w", 8, "nvidia.com/gpu=1", "n2");
    } else {
      b.Job("vip").Priority(200).Running("w", 8, "nvidia.com/gpu=1", "n2");
    }
    b.Job("high").Priority(100).Tasks("w", 2, "nvidia.com/gpu=4");
    Snapshot s = b.Build();
    // Elastic members only: with whole gangs, low's remaining members would go too.
    Decision d = RunConf(
        s, Conf("allocate, preempt", std::string(kNoLimits) + ", preemption.wholeGang: false"));
    EXPECT_EQ(Evicted(d), c.evicted);
    EXPECT_EQ(NominationMap(d).size(), c.evicted.empty() ? 0u : 2u);
    EXPECT_TRUE(d.binds.empty());
  }
}

TEST(VictimSearchTest, Volcano3291_GangUsesFreeNodeAndPreemptsOnOccupiedOne) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=32").Gpus(4);
  b.Node("n2").Resources("cpu=32").Gpus(4);
  b.Node("n3").Resources("cpu=32").Gpus(2);
  b.Job("low")
      .Priority(10)
      .MinAvailable(1)
      .Running("w", 4, "nvidia.com/gpu=1", "n2")
      .Running("w", 1, "nvidia.com/gpu=1", "n3");
  b.Job("high").Priority(100).Tasks("w", 2, "nvidia.com/gpu=4");
  Snapshot s = b.Build();
  Decision d = RunConf(s, Conf("allocate, preempt", kNoLimits));
  EXPECT_EQ(Evicted(d), (Names{"low-w-0", "low-w-1", "low-w-2", "low-w-3"}));
  auto nominations = NominationMap(d);
  ASSERT_EQ(nominations.size(), 2u);
  std::set<std::string> nodes{nominations["high-w-0"], nominations["high-w-1"]};
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2"})) << "one on the free node";
}

TEST(VictimSearchTest, Volcano4679_JobBlockedAtEnqueueTriggersReclaim) {
  struct Case {
    const char* name;
    const char* actions;
    bool hog_reclaimable;
    size_t evicted;
  };
  for (const Case& c : std::vector<Case>{
           {"pending job reclaims", "reclaim", true, 2},
           {"preempt never crosses queues", "preempt", true, 0},
           {"queue not reclaimable", "reclaim", false, 0},
       }) {
    SCOPED_TRACE(c.name);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=32").Gpus(8);
    b.Queue("qa").Deserved("nvidia.com/gpu=4");
    b.Queue("qb").Deserved("nvidia.com/gpu=4").Reclaimable(c.hog_reclaimable);
    auto& hog = b.Job("hog").InQueue("qb").MinAvailable(1);
    for (int i = 0; i < 8; ++i) hog.Running("w", 1, "nvidia.com/gpu=1", "n1", 1000 + i);
    b.Job("want").InQueue("qa").Phase(PodGroupPhase::kPending).Tasks("w", 2, "nvidia.com/gpu=1");
    Snapshot s = b.Build();
    Decision d = RunConf(s, Conf(c.actions));
    ASSERT_EQ(Evicted(d).size(), c.evicted);
    if (c.evicted == 0) continue;
    EXPECT_EQ(Evicted(d), (Names{"hog-w-0", "hog-w-1"})) << "longest-running first";
    for (const auto& e : d.evictions) {
      EXPECT_EQ(e.reason, "Reclaimed");
      EXPECT_EQ(e.preemptor_job_uid, "uid-want");
    }
    EXPECT_EQ(NominationMap(d).size(), 2u);
    const JobUpdate* u = FindJob(d, s, "want");
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->phase, PodGroupPhase::kInqueue);
  }
}

TEST(VictimSearchTest, HigherPriorityRequired) {
  struct Case {
    const char* name;
    int32_t victim_priority;
    const char* args;
    const char* priority_flags;
    size_t evicted;
  };
  for (const Case& c : std::vector<Case>{
           {"lower priority victim", 50, "", "", 1},
           {"equal priority", 100, "", "", 0},
           {"rule alone (priority plugin's vote off)", 100, "", "    enablePreemptable: false", 0},
           {"rule turned off", 100, "preemption.requireHigherPriority: false",
            "    enablePreemptable: false", 1},
       }) {
    SCOPED_TRACE(c.name);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=16").Gpus(4);
    b.Job("low")
        .Priority(c.victim_priority)
        .MinAvailable(1)
        .Running("w", 4, "cpu=1,nvidia.com/gpu=1", "n1");
    b.Job("high").Priority(100).Tasks("w", 1, "cpu=1,nvidia.com/gpu=1");
    Decision d = RunConf(b.Build(), Conf("allocate, preempt", c.args, c.priority_flags));
    EXPECT_EQ(Evicted(d).size(), c.evicted);
  }
}

TEST(VictimSearchTest, SameQueueFirstThenLowestPriority) {
  // Same node: the lowest-priority job of the preemptor's queue goes; other queues are untouched
  // while preempt can make room.
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=32").Gpus(8);
  b.Queue("qa").Deserved("nvidia.com/gpu=8");
  b.Queue("qb").Deserved("nvidia.com/gpu=2");
  b.Job("mid").InQueue("qa").Priority(50).MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1");
  b.Job("low").InQueue("qa").Priority(10).MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1",
                                                                  5000);
  b.Job("other").InQueue("qb").MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1", "n1");
  b.Job("high").InQueue("qa").Priority(100).Tasks("w", 1, "nvidia.com/gpu=1");
  Decision d = RunConf(b.Build(), Conf("allocate, preempt, reclaim", kNoLimits));
  EXPECT_EQ(Evicted(d), (Names{"low-w-0"}));
}

TEST(VictimSearchTest, LowestPriorityNodeChosenAcrossNodes) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=32").Gpus(2);
  b.Node("n2").Resources("cpu=32").Gpus(2);
  b.Job("mid").Priority(50).MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1");
  b.Job("low").Priority(10).MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n2", 9000);
  b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=1");
  Decision d = RunConf(b.Build(), Conf("allocate, preempt", kNoLimits));
  EXPECT_EQ(Evicted(d), (Names{"low-w-0"}));
  EXPECT_EQ(NominationMap(d)["high-w-0"], "n2");
}

TEST(VictimSearchTest, OtherQueuesLowestQueuePriorityFirst) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=32").Gpus(8);
  b.Queue("qa").Deserved("nvidia.com/gpu=4");
  b.Queue("qb").Deserved("nvidia.com/gpu=1").Priority(5);
  b.Queue("qc").Deserved("nvidia.com/gpu=1").Priority(1);
  b.Job("b").InQueue("qb").MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1", "n1");
  b.Job("c").InQueue("qc").MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1", "n1", 9000);
  b.Job("want").InQueue("qa").Tasks("w", 1, "nvidia.com/gpu=1");
  Decision d = RunConf(b.Build(), Conf("allocate, reclaim", kNoLimits));
  EXPECT_EQ(Evicted(d), (Names{"c-w-0"}));
}

TEST(VictimSearchTest, VictimOrderLongestRunningOrLeastWorkLost) {
  struct Case {
    const char* args;
    Names evicted;
  };
  for (const Case& c : std::vector<Case>{
           {"", {"low-w-0"}},
           {"preemption.victimOrder: longest-running", {"low-w-0"}},
           {"preemption.victimOrder: least-work-lost", {"low-w-1"}},
       }) {
    SCOPED_TRACE(c.args);
    ClusterBuilder b;
    b.Now(1'000'000);
    b.Node("n1").Resources("cpu=16").Gpus(4);
    b.Job("low")
        .Priority(10)
        .MinAvailable(1)
        .Running("w", 1, "nvidia.com/gpu=1", "n1", 100'000)  // ran longest, no checkpoint
        .Running("w", 1, "nvidia.com/gpu=1", "n1", 200'000)
        .LastTaskCheckpoint(990'000)  // lost 10s of work
        .Running("w", 2, "nvidia.com/gpu=1", "n1", 500'000);
    b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=1");
    std::string args = c.args;
    args += std::string(args.empty() ? "" : ", ") + kNoLimits;
    Decision d = RunConf(b.Build(), Conf("allocate, preempt", args));
    EXPECT_EQ(Evicted(d), c.evicted);
  }
}

TEST(VictimSearchTest, AtMost30PercentOfClusterPerCycle) {
  struct Case {
    const char* args;
    size_t evicted;
  };
  for (const Case& c : std::vector<Case>{
           {"preemption.maxJobFraction: 1.0", 0},  // the gang needs 4 of 10 GPUs: 40% > 30%
           {"preemption.maxJobFraction: 1.0, preemption.maxClusterFraction: 0.4", 4},
       }) {
    SCOPED_TRACE(c.args);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=64").Gpus(10);
    b.Job("low").Priority(10).MinAvailable(1).Running("w", 10, "nvidia.com/gpu=1", "n1");
    b.Job("high").Priority(100).Tasks("w", 4, "nvidia.com/gpu=1");
    Decision d = RunConf(b.Build(), Conf("allocate, preempt", c.args));
    EXPECT_EQ(Evicted(d).size(), c.evicted);
    EXPECT_EQ(NominationMap(d).size(), c.evicted);
  }
}

TEST(VictimSearchTest, AtMostHalfOfAJobPerCycle) {
  struct Case {
    const char* args;
    Names evicted;
  };
  for (const Case& c : std::vector<Case>{
           {"preemption.maxClusterFraction: 1.0", {"a-w-0", "a-w-1", "b-w-0"}},
           {kNoLimits, {"a-w-0", "a-w-1", "a-w-2"}},
       }) {
    SCOPED_TRACE(c.args);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=64").Gpus(8);
    b.Job("a").Priority(10).MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1", "n1");
    b.Job("b").Priority(20).MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1", "n1");
    b.Job("high").Priority(100).Tasks("w", 3, "nvidia.com/gpu=1");
    Decision d = RunConf(b.Build(), Conf("allocate, preempt", c.args));
    EXPECT_EQ(Evicted(d), c.evicted);
  }
}

// Members above minAvailable may go one by one; the gang's needed members never do (unless the
// whole gang goes: preemption.wholeGang, the default, evicts all four).
TEST(VictimSearchTest, GangMembersNeededByMinAvailableNeverTaken) {
  struct Case {
    int32_t victim_min;
    const char* whole_gang;
    size_t evicted;
  };
  for (const Case& c : std::vector<Case>{{3, "false", 0}, {2, "false", 2}, {3, "true", 4}}) {
    SCOPED_TRACE(fmt::format("minAvailable {}, wholeGang {}", c.victim_min, c.whole_gang));
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=64").Gpus(4);
    b.Job("low").Priority(10).MinAvailable(c.victim_min).Running("w", 4, "nvidia.com/gpu=1", "n1");
    b.Job("high").Priority(100).Tasks("w", 2, "nvidia.com/gpu=1");
    std::string args = fmt::format("{}, preemption.wholeGang: {}", kNoLimits, c.whole_gang);
    Decision d = RunConf(b.Build(), Conf("allocate, preempt", args));
    EXPECT_EQ(Evicted(d).size(), c.evicted);
  }
}

TEST(VictimSearchTest, WholeGangOption) {
  struct Case {
    const char* args;
    size_t evicted;
  };
  for (const Case& c : std::vector<Case>{
           {"preemption.maxClusterFraction: 1.0, preemption.wholeGang: false", 0},
           {"preemption.maxClusterFraction: 1.0", 4},  // the default
           {"preemption.maxClusterFraction: 1.0, preemption.wholeGang: true", 4},
           {"preemption.wholeGang: true", 0},  // the cluster cap still applies
       }) {
    SCOPED_TRACE(c.args);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=64").Gpus(4);
    b.Job("gang").Priority(10).Running("w", 4, "nvidia.com/gpu=1", "n1");  // minAvailable 4
    b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=2");
    Decision d = RunConf(b.Build(), Conf("allocate, preempt", c.args));
    EXPECT_EQ(Evicted(d).size(), c.evicted);
    if (c.evicted > 0) {
      EXPECT_NE(d.evictions[0].message.find("whole gang"), std::string::npos)
          << d.evictions[0].message;
    }
  }
}

// The whole-gang attempt is an argument of the vote: the plugins are asked with
// EvictionScope::kWholeGang and still see the victim job's minAvailable as it is.
TEST(VictimSearchTest, WholeGangIntentReachesTheVoteAndMinAvailableStays) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(4);
  b.Job("gang").Priority(10).Running("w", 4, "nvidia.com/gpu=1", "n1");  // minAvailable 4
  b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=2");
  Snapshot snap = b.Build();
  std::string yaml = fmt::format(R"(
actions: "allocate, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: testscope
  - name: preemption
    arguments: {{{}}}
)",
                                 "preemption.maxClusterFraction: 1.0, preemption.wholeGang: true");
  RecordedScopes().clear();
  Decision d = RunConf(snap, yaml);
  EXPECT_EQ(Evicted(d).size(), 4u);
  bool whole_gang_asked = false;
  for (const ScopeRecord& r : RecordedScopes()) {
    if (r.scope != EvictionScope::kWholeGang) continue;
    whole_gang_asked = true;
    EXPECT_EQ(r.min_available, (std::vector<int32_t>{4, 4, 4, 4}));
  }
  EXPECT_TRUE(whole_gang_asked);
}

TEST(VictimSearchTest, VictimsMarkedWithReasonAndPreemptorNominated) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(4);
  b.Job("low").Priority(10).MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1", "n1");
  b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = RunConf(s, Conf("allocate, preempt"));
  ASSERT_EQ(d.evictions.size(), 1u);
  const EvictDecision& e = d.evictions[0];
  EXPECT_EQ(e.reason, "Preempted");
  EXPECT_EQ(e.preemptor_job_uid, "uid-high");
  EXPECT_EQ(e.node, "n1");
  EXPECT_NE(e.message.find("default/high"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("higher-priority job in the same queue"), std::string::npos)
      << e.message;
  EXPECT_EQ(NominationMap(d)["high-w-0"], "n1");
  EXPECT_TRUE(d.binds.empty());
  const JobUpdate* u = FindJob(d, s, "high");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->condition, "Scheduled");
}

TEST(VictimSearchTest, ConformanceProtectsKubeSystem) {
  for (const char* ns : {"kube-system", "default"}) {
    SCOPED_TRACE(ns);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=16").Gpus(4);
    b.Job("low").Namespace(ns).Priority(10).MinAvailable(1).Running("w", 4, "nvidia.com/gpu=1",
                                                                    "n1");
    b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=1");
    Decision d = RunConf(b.Build(), Conf("allocate, preempt"));
    EXPECT_EQ(Evicted(d).size(), std::string(ns) == "kube-system" ? 0u : 1u);
  }
}

TEST(VictimSearchTest, NoEvictionWhenVictimsCannotMakeRoom) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(4);
  b.Job("low").Priority(10).MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1");
  b.Job("vip").Priority(200).MinAvailable(1).Running("w", 2, "nvidia.com/gpu=1", "n1");
  b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=4");
  Decision d = RunConf(b.Build(), Conf("allocate, preempt", kNoLimits));
  EXPECT_TRUE(d.evictions.empty());
  EXPECT_TRUE(d.nominations.empty());
}

TEST(VictimSearchTest, NeverEvictsMoreThanNeeded) {
  // Victim order picks the small GPU task first, but the big one alone makes room: the small
  // one is spared (pruned after the greedy walk, or the single-victim fallback when the gang
  // rule stops the walk).
  for (int spare_members : {1, 2}) {
    SCOPED_TRACE(spare_members);
    ClusterBuilder b;
    b.Node("n1").Resources("cpu=16").Gpus(4);
    auto& low = b.Job("low").Priority(10).MinAvailable(1);
    low.Running("w", 1, "nvidia.com/gpu=1", "n1", 100)
        .Running("w", 1, "nvidia.com/gpu=3", "n1", 200);
    if (spare_members == 2) low.Running("c", 1, "cpu=1", "n1", 300);
    b.Job("high").Priority(100).Tasks("w", 1, "nvidia.com/gpu=3");
    Decision d = RunConf(b.Build(), Conf("allocate, preempt", kNoLimits));
    EXPECT_EQ(Evicted(d), (Names{"low-w-1"}));
  }
}

}  // namespace
}  // namespace etna::sched

namespace etna::sched {
namespace {

// A preemptor that found nothing is remembered, so identical later preemptors are not searched
// again; one with different constraints (or a higher priority) must still be searched.
TEST(VictimSearchTest, FailedPreemptorDoesNotHideADifferentOne) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16").Gpus(4).Label("pool", "a");
  b.Job("low").Priority(10).MinAvailable(1).Running("w", 4, "cpu=1,nvidia.com/gpu=1", "n1");
  auto nowhere = std::make_shared<PodSpec>();
  nowhere->node_selector["pool"] = "b";  // matches no node: finds no victims
  b.Job("stuck").Priority(100).CreatedAt(1).Tasks("w", 1, "cpu=1,nvidia.com/gpu=1", nowhere);
  b.Job("blocked").Priority(100).CreatedAt(2).Tasks("w", 1, "cpu=1,nvidia.com/gpu=1", nowhere);
  b.Job("free").Priority(50).CreatedAt(3).Tasks("w", 1, "cpu=1,nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = RunConf(s, Conf("allocate, preempt", kNoLimits) + "  - name: predicates\n");
  EXPECT_EQ(Evicted(d).size(), 1u) << "the unconstrained job preempts despite two failures";
  EXPECT_TRUE(NominationMap(d).count("free-w-0"));
  EXPECT_FALSE(NominationMap(d).count("stuck-w-0"));
}

}  // namespace
}  // namespace etna::sched

namespace etna::sched {
namespace {

// The daemon's default configuration, as `etna dev` runs it: a high-priority gang of 4 in the
// same queue takes the elastic members (above minAvailable) of a low-priority job that holds
// every GPU, within the 30% cluster and 50% job limits.
TEST(VictimSearchTest, DefaultConfPreemptsElasticMembersForAHigherPriorityGang) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=128,memory=1Ti").Gpus(8);
  b.Node("n2").Resources("cpu=128,memory=1Ti").Gpus(8);
  auto& low = b.Job("low").Priority(10).MinAvailable(8);
  for (int i = 0; i < 16; ++i) {
    low.Running("w", 1, "cpu=1,memory=1Gi,nvidia.com/gpu=1", i % 2 ? "n2" : "n1", 1000 + i);
  }
  b.Job("high").Priority(100).MinAvailable(4).Tasks("w", 4, "cpu=1,memory=1Gi,nvidia.com/gpu=1");
  Snapshot snap = b.Build();
  Decision d =
      testkit::ScheduleWith(snap, std::string(DefaultSchedulerConfYaml()), BuiltinRegistry());
  EXPECT_EQ(d.evictions.size(), 4u);
  for (const auto& e : d.evictions) EXPECT_EQ(e.reason, "Preempted");
}

// Preemptors of one class (same queue, priority and request) one after another: each takes the
// next whole gang in the seed's order, the nodes that held no plan for the first are not planned
// again, and a fourth preemptor finds nothing left and evicts nothing.
TEST(VictimSearchTest, PreemptorsOfOneClassTakeTheNextGangsInOrder) {
  ClusterBuilder b;
  for (const char* n : {"n0", "n1", "n2"}) b.Node(n).Resources("cpu=64").Gpus(4);
  b.Job("g2").Priority(2).Running("w", 4, "cpu=1,nvidia.com/gpu=1", "n0");
  b.Job("g3").Priority(3).Running("w", 4, "cpu=1,nvidia.com/gpu=1", "n1");
  b.Job("g1").Priority(1).Running("w", 4, "cpu=1,nvidia.com/gpu=1", "n2");
  for (int i = 0; i < 4; ++i) {
    b.Job(fmt::format("h{}", i)).Priority(100).CreatedAt(i).Tasks("w", 1, "cpu=1,nvidia.com/gpu=4");
  }
  Decision d = RunConf(b.Build(), Conf("allocate, preempt", kNoLimits));
  auto nominated = NominationMap(d);
  EXPECT_EQ(nominated["h0-w-0"], "n2");
  EXPECT_EQ(nominated["h1-w-0"], "n0");
  EXPECT_EQ(nominated["h2-w-0"], "n1");
  EXPECT_FALSE(nominated.count("h3-w-0"));
  EXPECT_EQ(Evicted(d).size(), 12u) << "three whole gangs, nothing for the fourth";
}

}  // namespace
}  // namespace etna::sched
