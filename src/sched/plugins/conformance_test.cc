#include "sched/plugins/conformance.h"

#include <gtest/gtest.h>

#include "sched/framework/registry.h"
#include "sched/framework/session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::ClusterBuilder;

TEST(ConformanceTest, CriticalPodsAreNeverVictims) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=16");
  b.Job("normal").Running("w", 1, "cpu=1", "n1");
  b.Job("cluster-critical")
      .Running("w", 1, "cpu=1", "n1")
      .LastTaskPriorityClass("system-cluster-critical");
  b.Job("node-critical")
      .Running("w", 1, "cpu=1", "n1")
      .LastTaskPriorityClass("system-node-critical");
  b.Job("system").Namespace("kube-system").Running("w", 1, "cpu=1", "n1");
  b.Job("high").Running("w", 1, "cpu=1", "n1").LastTaskPriorityClass("high");
  b.Job("preemptor").Tasks("w", 1, "cpu=1");
  Snapshot snap = b.Build();
  SchedulerConf conf = testkit::Conf(R"(
actions: "allocate"
tiers:
- plugins:
  - name: conformance
)");
  Session s(snap, conf, BuiltinRegistry());
  ASSERT_TRUE(s.Open().ok());
  std::vector<TaskIdx> candidates;
  const Task* preemptor = nullptr;
  for (const Task& t : s.tasks()) {
    if (t.status == TaskStatus::kRunning) candidates.push_back(s.IndexOf(t));
    if (t.status == TaskStatus::kPending) preemptor = &t;
  }
  ASSERT_NE(preemptor, nullptr);
  for (auto victims :
       {s.Preemptable(*preemptor, candidates), s.Reclaimable(*preemptor, candidates)}) {
    ASSERT_TRUE(victims.has_value());
    std::vector<std::string> names;
    for (TaskIdx ti : *victims) names.push_back(s.task(ti).name);
    EXPECT_EQ(names, (std::vector<std::string>{"normal-w-0", "high-w-0"}));
  }
}

}  // namespace
}  // namespace etna::sched
