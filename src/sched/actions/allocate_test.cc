#include <gtest/gtest.h>

#include "sched/testing/cluster_builder.h"

namespace etna::sched {
namespace {

using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::Schedule;

constexpr const char* kConf = testkit::kAllocatePriorityGangConf;

TEST(AllocateTest, PlacesGangOnGpusAndNamesDevices) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64,memory=256Gi").Gpus(8, "H100", 2);
  b.Job("train").Tasks("worker", 4, "cpu=4,memory=16Gi,nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  ASSERT_EQ(d.binds.size(), 4u);
  std::set<int32_t> devices;
  for (const auto& bind : d.binds) {
    EXPECT_EQ(bind.node, "n1");
    ASSERT_EQ(bind.gpu_indices.size(), 1u);
    ASSERT_EQ(bind.gpu_uuids.size(), 1u);
    devices.insert(bind.gpu_indices[0]);
  }
  EXPECT_EQ(devices.size(), 4u) << "two whole-GPU tasks never share a device";
  const JobUpdate* u = FindJob(d, s, "train");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->condition, "Scheduled");
  EXPECT_EQ(u->phase, PodGroupPhase::kRunning);
}

TEST(AllocateTest, GangIsAllOrNothing) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64,memory=256Gi").Gpus(3);
  b.Job("train").Tasks("worker", 4, "cpu=1,nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  EXPECT_TRUE(d.binds.empty());
  const JobUpdate* u = FindJob(d, s, "train");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->condition, "Unschedulable");
  EXPECT_EQ(u->reason, "NotEnoughResources");
  EXPECT_NE(u->message.find("Insufficient nvidia.com/gpu"), std::string::npos) << u->message;
  EXPECT_EQ(u->backoff.failures, 1);
  EXPECT_GT(u->backoff.not_before_ms, s.now_ms);
}

TEST(AllocateTest, HigherPriorityJobGoesFirst) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8").Gpus(4);
  b.Job("low").Priority(10).Tasks("w", 4, "nvidia.com/gpu=1");
  b.Job("high").Priority(100).Tasks("w", 4, "nvidia.com/gpu=1");
  Decision d = Schedule(b.Build(), kConf);
  auto binds = BindMap(d);
  EXPECT_EQ(binds.size(), 4u);
  EXPECT_TRUE(binds.count("high-w-0"));
  EXPECT_FALSE(binds.count("low-w-0"));
}

TEST(AllocateTest, BackoffSkipsJobUntilDelayOrCapacityChange) {
  Backoff backoff;
  backoff.failures = 2;
  backoff.delay_ms = 2000;
  backoff.not_before_ms = 1'700'000'001'000;
  backoff.capacity_generation = 7;
  ClusterBuilder b;
  b.Now(1'700'000'000'000).Generation(7);
  b.Node("n1").Resources("cpu=8").Gpus(4);
  b.Job("j").WithBackoff(backoff).Tasks("w", 1, "nvidia.com/gpu=1");
  EXPECT_TRUE(Schedule(b.Build(), kConf).binds.empty()) << "inside its delay, nothing changed";
  b.Generation(8);
  EXPECT_EQ(Schedule(b.Build(), kConf).binds.size(), 1u) << "capacity changed: retried at once";
  b.Generation(7).Now(1'700'000'001'000);
  Decision d = Schedule(b.Build(), kConf);
  EXPECT_EQ(d.binds.size(), 1u) << "delay passed";
  EXPECT_EQ(d.jobs.at(0).backoff.failures, 0) << "success resets the backoff";
}

TEST(AllocateTest, BackoffDelayDoublesUpToMax) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=8");
  Backoff backoff;
  backoff.failures = 3;
  backoff.delay_ms = 4000;
  b.Job("j").WithBackoff(backoff).Tasks("w", 1, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  Decision d = Schedule(s, kConf);
  ASSERT_EQ(d.jobs.size(), 1u);
  EXPECT_EQ(d.jobs[0].backoff.delay_ms, 8000);
  EXPECT_EQ(d.jobs[0].backoff.failures, 4);
  EXPECT_EQ(d.jobs[0].backoff.not_before_ms, s.now_ms + 8000);
}

TEST(AllocateTest, MultiGpuTaskStaysInsideOneNvlinkDomain) {
  ClusterBuilder b;
  b.Node("n1").Resources("cpu=64").Gpus(8, "H100", 2);  // domains {0-3}, {4-7}
  b.Job("j").Tasks("w", 1, "nvidia.com/gpu=4");
  Decision d = Schedule(b.Build(), kConf);
  ASSERT_EQ(d.binds.size(), 1u);
  const auto& g = d.binds[0].gpu_indices;
  ASSERT_EQ(g.size(), 4u);
  bool low = g[0] < 4;
  for (int32_t i : g) EXPECT_EQ(i < 4, low);
}

}  // namespace
}  // namespace etna::sched
