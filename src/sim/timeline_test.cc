// The time-aware replay on tiny clusters whose answers are worked out by hand.
#include "sim/timeline.h"

#include <gtest/gtest.h>

#include "sched/framework/conf.h"
#include "sched/framework/registry.h"
#include "sched/testing/cluster_builder.h"

namespace etna::sim {
namespace {

using sched::testkit::ClusterBuilder;
using sched::testkit::Res;

constexpr char kConf[] = R"(
actions: "enqueue, allocate, preempt, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
- plugins:
  - name: predicates
  - name: proportion
)";

// The seed's preemption rules allow at most 30 % of the cluster per cycle: here all of it.
constexpr char kPreemptConf[] = R"(
actions: "allocate, preempt"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: preemption
    arguments: {preemption.maxClusterFraction: 1.0}
- plugins:
  - name: predicates
)";

sched::SchedulerConf Conf(const char* yaml = kConf) {
  auto conf = sched::ParseSchedulerConf(yaml, sched::BuiltinRegistry());
  EXPECT_TRUE(conf.ok()) << conf.status().ToString();
  return *conf;
}

SimJob Job(std::string name, TimeMs submit_s, TimeMs duration_s, int gpus, int tasks = 1) {
  SimJob j;
  j.name = std::move(name);
  j.submit_ms = submit_s * 1000;
  j.duration_ms = duration_s * 1000;
  j.tasks = tasks;
  j.request = Res("cpu=1,nvidia.com/gpu=" + std::to_string(gpus));
  return j;
}

struct Cluster {
  std::vector<sched::Node> nodes;
  std::vector<sched::Queue> queues;
};

Cluster OneNode(int gpus) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64,memory=512Gi").Gpus(gpus, "H100");
  b.Queue("default");
  sched::Snapshot snap = b.Build();
  return {snap.nodes, snap.queues};
}

TEST(TimelineTest, JobsWaitForTheGpusAndStartWhenTheyFree) {
  Cluster c = OneNode(8);
  // A takes the node for 100 s; B and C arrive while it runs and start together when it ends.
  std::vector<SimJob> jobs = {Job("a", 0, 100, 8), Job("b", 10, 50, 4), Job("c", 20, 30, 4)};
  auto r = Simulate(c.nodes, c.queues, Conf(), jobs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(JobsCsv(*r),
            "name,queue,gpus,submit_s,start_s,end_s,wait_s,jct_s,preemptions,lost_work_s\n"
            "a,default,8,0,0,100,0,100,0,0\n"
            "b,default,4,10,100,150,90,140,0,0\n"
            "c,default,4,20,100,130,80,110,0,0\n");
  EXPECT_EQ(r->end_ms, 150'000);
}

TEST(TimelineTest, AGangStartsWhole) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64,memory=512Gi").Gpus(4, "H100");
  b.Node("n2").Resources("cpu=64,memory=512Gi").Gpus(4, "H100");
  b.Queue("default");
  sched::Snapshot snap = b.Build();
  // The gang of two 4-GPU tasks cannot start while `small` holds 2 GPUs of one node.
  std::vector<SimJob> jobs = {Job("small", 0, 60, 2), Job("gang", 5, 100, 4, 2)};
  auto r = Simulate(snap.nodes, snap.queues, Conf(), jobs);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->jobs.size(), 2u);
  EXPECT_EQ(r->jobs[1].first_start_ms, 60'000);
  EXPECT_EQ(r->jobs[1].end_ms, 160'000);
}

TEST(TimelineTest, APreemptedJobLosesTheWorkSinceItsLastCheckpoint) {
  Cluster c = OneNode(8);
  SimJob low = Job("low", 0, 1000, 8);
  low.priority = 1;
  low.checkpoint_interval_ms = 100'000;
  SimJob high = Job("high", 250, 50, 8);
  high.priority = 100;
  auto r = Simulate(c.nodes, c.queues, Conf(kPreemptConf), {low, high});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const JobOutcome& l = r->jobs[0];
  const JobOutcome& h = r->jobs[1];
  // Evicted at 250 s (checkpointed at 200 s: 50 s lost), the preemptor binds at the next cycle.
  EXPECT_EQ(l.preemptions, 1);
  EXPECT_EQ(l.lost_work_ms, 50'000);
  EXPECT_EQ(h.first_start_ms, 260'000);
  EXPECT_EQ(h.end_ms, 310'000);
  // 800 s of work left.
  EXPECT_EQ(l.first_start_ms, 0);
  EXPECT_EQ(l.end_ms, 1'110'000);

  // The replay's default interval stands in for a job that gives none; without either the
  // victim starts over.
  low.checkpoint_interval_ms = 0;
  for (auto [interval, lost] : {std::pair<TimeMs, TimeMs>{100'000, 50'000}, {0, 250'000}}) {
    auto d = Simulate(c.nodes, c.queues, Conf(kPreemptConf), {low, high},
                      {.default_checkpoint_interval_ms = interval});
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->jobs[0].lost_work_ms, lost) << interval;
  }
}

TEST(TimelineTest, AJobThatCanNeverFitIsReportedAndTheRunEnds) {
  Cluster c = OneNode(8);
  auto r = Simulate(c.nodes, c.queues, Conf(), {Job("huge", 0, 10, 16), Job("ok", 0, 10, 1)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->jobs[0].first_start_ms, -1);
  EXPECT_EQ(r->jobs[1].end_ms, 10'000);
}

TEST(TimelineTest, TheSameInputsGiveTheSameBytes) {
  Cluster c = OneNode(8);
  std::vector<SimJob> jobs;
  for (int i = 0; i < 40; ++i)
    jobs.push_back(Job("j" + std::to_string(i), i * 7, 30 + i % 5 * 20, 1 + i % 4));
  auto a = Simulate(c.nodes, c.queues, Conf(), jobs, {.sample_period_ms = 60'000});
  auto b = Simulate(c.nodes, c.queues, Conf(), jobs, {.sample_period_ms = 60'000});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(JobsCsv(*a), JobsCsv(*b));
  EXPECT_EQ(SeriesCsv(*a), SeriesCsv(*b));
  EXPECT_GT(a->samples.size(), 3u);
}

TEST(TimelineTest, BadInputNamesTheJob) {
  Cluster c = OneNode(8);
  SimJob j = Job("lost", 0, 10, 1);
  j.queue = "nowhere";
  auto r = Simulate(c.nodes, c.queues, Conf(), {j});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "job lost: queue \"nowhere\" is not among the queues");
  auto twice = Simulate(c.nodes, c.queues, Conf(), {Job("x", 0, 1, 1), Job("x", 1, 1, 1)});
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().message(), "job x: the name appears twice");
}

}  // namespace
}  // namespace etna::sim
