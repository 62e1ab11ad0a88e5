#include "sched/plugins/sla.h"

#include <gtest/gtest.h>

#include "sched/framework/registry.h"
#include "sched/framework/session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::Schedule;

constexpr TimeMs kNow = 1'700'000'000'000;
constexpr TimeMs kMin = 60'000;

const Job& ByName(const Session& s, std::string_view name) {
  for (const Job& j : s.jobs()) {
    if (j.name == name) return j;
  }
  throw std::runtime_error("no job");
}

// none: no SLA, 10m old. late: 5m old, SLA 1m (4m overdue). early: 20m old, SLA 1h.
Snapshot Jobs() {
  ClusterBuilder b;
  b.Now(kNow);
  b.Node("n1").Resources("cpu=4");
  b.Job("none").CreatedAt(kNow - 10 * kMin).MinResources("cpu=4").Tasks("w", 1, "cpu=4");
  b.Job("late")
      .CreatedAt(kNow - 5 * kMin)
      .SlaWaiting(kMin)
      .MinResources("cpu=4")
      .Tasks("w", 1, "cpu=4");
  b.Job("early")
      .CreatedAt(kNow - 20 * kMin)
      .SlaWaiting(60 * kMin)
      .MinResources("cpu=4")
      .Tasks("w", 1, "cpu=4");
  return b.Build();
}

TEST(SlaTest, JobOrderByDeadline) {
  struct Case {
    const char* args;
    std::vector<std::string> want;
  };
  for (const auto& c :
       {Case{"", {"late", "early", "none"}},
        // A default of 2m gives "none" a deadline 8m ago; a job's own limit still wins.
        Case{"    arguments:\n      sla-waiting-time: 2m\n", {"none", "late", "early"}}}) {
    SCOPED_TRACE(c.args);
    SchedulerConf conf = testkit::Conf(std::string(R"(
actions: "allocate"
tiers:
- plugins:
  - name: sla
)") + c.args);
    Session s(Jobs(), conf, BuiltinRegistry());
    ASSERT_TRUE(s.Open().ok());
    std::vector<const Job*> jobs;
    for (const Job& j : s.jobs()) jobs.push_back(&j);
    std::sort(jobs.begin(), jobs.end(),
              [&](const Job* a, const Job* b) { return s.CompareJobs(*a, *b) < 0; });
    std::vector<std::string> names;
    for (const Job* j : jobs) names.push_back(j->name);
    EXPECT_EQ(names, c.want);
  }
}

TEST(SlaTest, PastDueJobsAreForcedThroughEnqueueAndPipelineVotes) {
  // Tier 1: sla; tier 2: overcommit (the node is full) and gang (nothing placed yet).
  SchedulerConf conf = testkit::Conf(R"(
actions: "allocate"
tiers:
- plugins:
  - name: sla
- plugins:
  - name: overcommit
    arguments:
      overcommit-factor: 1.0
  - name: gang
)");
  ClusterBuilder b;
  b.Now(kNow);
  b.Node("n1").Resources("cpu=4");
  b.Job("run").Phase(PodGroupPhase::kRunning).Running("w", 1, "cpu=4", "n1");
  b.Job("late")
      .CreatedAt(kNow - 5 * kMin)
      .SlaWaiting(kMin)
      .MinResources("cpu=4")
      .Tasks("w", 1, "cpu=4");
  b.Job("early")
      .CreatedAt(kNow - 5 * kMin)
      .SlaWaiting(60 * kMin)
      .MinResources("cpu=4")
      .Tasks("w", 1, "cpu=4");
  Session s(b.Build(), conf, BuiltinRegistry());
  ASSERT_TRUE(s.Open().ok());
  EXPECT_TRUE(s.JobEnqueueable(ByName(s, "late")));
  EXPECT_FALSE(s.JobEnqueueable(ByName(s, "early")));
  EXPECT_TRUE(s.JobPipelined(ByName(s, "late")));
  EXPECT_FALSE(s.JobPipelined(ByName(s, "early")));
}

TEST(SlaTest, OverdueJobIsAllocatedFirst) {
  constexpr char kConf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: sla
  - name: gang
)";
  auto binds = BindMap(Schedule(Jobs(), kConf));
  ASSERT_EQ(binds.size(), 1u);
  EXPECT_EQ(binds.begin()->first, "late-w-0");
}

TEST(SlaTest, BadDurationIsRejected) {
  auto conf = ParseSchedulerConf(R"(
actions: "allocate"
tiers:
- plugins:
  - name: sla
    arguments:
      sla-waiting-time: soon
)",
                                 BuiltinRegistry());
  ASSERT_FALSE(conf.ok());
  EXPECT_NE(conf.status().ToString().find("sla-waiting-time"), std::string::npos);
}

}  // namespace
}  // namespace etna::sched
