#include "sched/plugins/overcommit.h"

#include <gtest/gtest.h>

#include "sched/framework/registry.h"
#include "sched/framework/session.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::ClusterBuilder;

std::string ConfWith(const std::string& args) {
  std::string conf = R"(
actions: "allocate"
tiers:
- plugins:
  - name: overcommit
)";
  if (!args.empty()) conf += "    arguments:\n      " + args + "\n";
  return conf;
}

// 10 cpu; a running job uses 2 (its minResources are met); an Inqueue job waits for 4; the
// rest are Pending candidates.
Snapshot Cluster() {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=10,memory=100Gi");
  b.Node("down").Resources("cpu=100").NotReady();
  b.Job("run").Phase(PodGroupPhase::kRunning).MinResources("cpu=2").Running("w", 1, "cpu=2", "n1");
  b.Job("inq").Phase(PodGroupPhase::kInqueue).MinResources("cpu=4").Tasks("w", 1, "cpu=4");
  b.Job("fits").Phase(PodGroupPhase::kPending).MinResources("cpu=6").Tasks("w", 1, "cpu=6");
  b.Job("over").Phase(PodGroupPhase::kPending).MinResources("cpu=7").Tasks("w", 1, "cpu=7");
  b.Job("nomin").Phase(PodGroupPhase::kPending).Tasks("w", 1, "cpu=50");
  b.Job("small").Phase(PodGroupPhase::kPending).MinResources("cpu=1").Tasks("w", 1, "cpu=1");
  return b.Build();
}

const Job& ByName(const Session& s, std::string_view name) {
  for (const Job& j : s.jobs()) {
    if (j.name == name) return j;
  }
  throw std::runtime_error("no job");
}

TEST(OvercommitTest, EnqueueableAgainstOvercommittedIdle) {
  // idle = 10 × 1.2 − 2 = 10 cpu; inqueue = 4.
  SchedulerConf conf = testkit::Conf(ConfWith(""));
  Session s(Cluster(), conf, BuiltinRegistry());
  ASSERT_TRUE(s.Open().ok());
  EXPECT_TRUE(s.JobEnqueueable(ByName(s, "fits")));   // 4 + 6 <= 10
  EXPECT_FALSE(s.JobEnqueueable(ByName(s, "over")));  // 4 + 7 > 10
  EXPECT_TRUE(s.JobEnqueueable(ByName(s, "nomin"))) << "no minResources: always";
  EXPECT_TRUE(s.JobEnqueueable(ByName(s, "small")));
  s.JobEnqueued(ByName(s, "fits"));
  EXPECT_FALSE(s.JobEnqueueable(ByName(s, "small"))) << "the admitted job is accounted";
}

TEST(OvercommitTest, RunningJobsCountTheirUnmetMinimum) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=10");
  // Needs 6 but holds 2: 4 more are spoken for.
  b.Job("run").Phase(PodGroupPhase::kRunning).MinResources("cpu=6").Running("w", 1, "cpu=2", "n1");
  b.Job("j").Phase(PodGroupPhase::kPending).MinResources("cpu=7").Tasks("w", 1, "cpu=7");
  b.Job("k").Phase(PodGroupPhase::kPending).MinResources("cpu=6").Tasks("w", 1, "cpu=6");
  SchedulerConf conf = testkit::Conf(ConfWith(""));
  Session s(b.Build(), conf, BuiltinRegistry());
  ASSERT_TRUE(s.Open().ok());
  // idle = 12 − 2 = 10.
  EXPECT_FALSE(s.JobEnqueueable(ByName(s, "j")));  // 4 + 7 > 10
  EXPECT_TRUE(s.JobEnqueueable(ByName(s, "k")));   // 4 + 6 <= 10
}

TEST(OvercommitTest, FactorArgument) {
  struct Case {
    const char* args;
    bool open_ok;
    bool over_enqueueable;
  };
  for (const auto& c :
       {Case{"overcommit-factor: 2.0", true, true},   // 20 − 2 = 18
        Case{"overcommit-factor: 1.0", true, false},  // 10 − 2 = 8
        Case{"overcommit-factor: 0.5", false, false}, Case{"overcommit-factor: lots", false, false},
        Case{"overcommit-ratio: 2", false, false}}) {
    SCOPED_TRACE(c.args);
    auto parsed = ParseSchedulerConf(ConfWith(c.args), BuiltinRegistry());
    ASSERT_EQ(parsed.ok(), c.open_ok) << parsed.status().ToString();
    if (c.open_ok) {
      SchedulerConf conf = *parsed;
      Session s(Cluster(), conf, BuiltinRegistry());
      ASSERT_TRUE(s.Open().ok());
      EXPECT_EQ(s.JobEnqueueable(ByName(s, "over")), c.over_enqueueable);
    }
  }
}

}  // namespace
}  // namespace etna::sched
