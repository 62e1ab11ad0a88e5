#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sched/testing/cluster_builder.h"
#include "sched/testing/queueing_kit.h"

namespace etna::sched {
namespace {

using testkit::ApplyDecision;
using testkit::BindMap;
using testkit::ClusterBuilder;
using testkit::FindJob;
using testkit::Res;
using testkit::Schedule;

constexpr TimeMs kNow = 1'700'000'000'000;
constexpr TimeMs kMinute = 60'000;

std::string Conf(bool reservation) {
  return fmt::format(R"(
actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
configurations:
- name: allocate
  arguments:
    reservation.enable: {}
    reservation.starvingAfter: 2m
)",
                     reservation ? "true" : "false");
}

void AddSmallJob(Snapshot& s, const std::string& name, TimeMs created) {
  Job job;
  job.uid = "uid-" + name;
  job.name = name;
  job.ns = "default";
  job.queue = 0;
  job.min_available = 1;
  job.creation_ms = created;
  job.phase = PodGroupPhase::kPending;
  job.running_estimate_ms = 3 * kMinute;
  Task t;
  t.uid = "uid-" + name + "-w-0";
  t.name = name + "-w-0";
  t.ns = "default";
  t.role = "w";
  t.job = static_cast<JobIdx>(s.jobs.size());
  t.request = Res("nvidia.com/gpu=1");
  job.tasks.push_back(static_cast<TaskIdx>(s.tasks.size()));
  s.tasks.push_back(t);
  s.jobs.push_back(job);
}

// Runs `cycles` one-minute cycles of a 16-GPU gang behind a stream of 1-GPU jobs that each run
// exactly their 3-minute estimate; returns the cycle in which the gang was bound, or -1.
int CycleGangBound(bool reservation, int cycles) {
  ClusterBuilder b;
  b.Now(kNow);
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Node("n2").Resources("cpu=64").Gpus(8);
  b.Job("gang").CreatedAt(kNow).Phase(PodGroupPhase::kPending).Tasks("w", 16, "nvidia.com/gpu=1");
  for (int i = 0; i < 16; ++i) {
    b.Job(fmt::format("run{}", i))
        .CreatedAt(kNow - 10 * kMinute)
        .RunningEstimate(3 * kMinute)
        .Running("w", 1, "nvidia.com/gpu=1", i < 8 ? "n1" : "n2", kNow - (i % 8) * 20'000);
  }
  Snapshot s = b.Build();
  int serial = 0;
  for (int i = 0; i < 30; ++i) AddSmallJob(s, fmt::format("small{}", serial++), kNow + 1 + i);
  const JobIdx gang = 0;
  std::string conf = Conf(reservation);
  for (int cycle = 0; cycle < cycles; ++cycle) {
    Decision d = Schedule(s, conf);
    // No task ever shares a GPU device.
    std::set<std::pair<std::string, int32_t>> devices;
    for (const auto& t : s.tasks) {
      if (t.status != TaskStatus::kRunning) continue;
      for (const auto& dev : t.devices) devices.emplace(s.nodes[t.node].name, dev.gpu);
    }
    for (const auto& bind : d.binds) {
      for (int32_t g : bind.gpu_indices) {
        EXPECT_TRUE(devices.emplace(bind.node, g).second) << bind.pod_name << " on a used GPU";
      }
    }
    ApplyDecision(d, s);
    int gang_running = 0;
    for (TaskIdx t : s.jobs[gang].tasks) gang_running += s.tasks[t].status == TaskStatus::kRunning;
    EXPECT_TRUE(gang_running == 0 || gang_running == 16) << gang_running;
    if (gang_running == 16) return cycle;
    // A minute passes: tasks that ran their estimate finish, new small jobs arrive.
    s.now_ms += kMinute;
    for (auto& t : s.tasks) {
      if (t.status == TaskStatus::kRunning &&
          t.start_ms + s.jobs[t.job].running_estimate_ms <= s.now_ms) {
        t.status = TaskStatus::kSucceeded;
        t.devices.clear();
        ++s.capacity_generation;
      }
    }
    for (int i = 0; i < 6; ++i) AddSmallJob(s, fmt::format("small{}", serial++), s.now_ms + i);
  }
  return -1;
}

TEST(ReservationTest, StarvingGangGetsItsNodesBehindStreamOfSmallJobs) {
  EXPECT_EQ(CycleGangBound(/*reservation=*/false, 20), -1)
      << "without a reservation the small jobs take every freed GPU";
  int bound = CycleGangBound(/*reservation=*/true, 20);
  EXPECT_GE(bound, 2) << "not starving before 2 minutes";
  EXPECT_LE(bound, 7) << "reserved at 2m, the last 3-minute task ends by 5-6m";
}

struct BackfillCase {
  const char* name;
  TimeMs estimate_ms;
  bool bound;
};

TEST(ReservationTest, ShortJobBackfillsOnlyWhenItEndsBeforeTheReservationStarts) {
  const BackfillCase cases[] = {
      {"ends-well-before", 2 * kMinute, true},
      {"ends-exactly-at-start", 5 * kMinute, true},
      {"ends-after-start", 6 * kMinute, false},
      {"no-estimate", 0, false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ClusterBuilder b;
    b.Now(kNow);
    b.Node("n1").Resources("cpu=64").Gpus(8);
    b.Node("n2").Resources("cpu=64").Gpus(8);
    b.Job("gang").Tasks("w", 16, "nvidia.com/gpu=1");
    // Holds one GPU of n1 until kNow + 5m: that is when the reservation can start.
    b.Job("old")
        .RunningEstimate(10 * kMinute)
        .Running("w", 1, "nvidia.com/gpu=1", "n1", kNow - 5 * kMinute);
    b.Job("short").RunningEstimate(c.estimate_ms).Tasks("w", 1, "nvidia.com/gpu=1");
    Snapshot s = b.Build();
    s.reservations.push_back(
        {"uid-gang", {{0, Res("nvidia.com/gpu=8")}, {1, Res("nvidia.com/gpu=8")}}, kNow - 1});
    Decision d = Schedule(s, Conf(true));
    EXPECT_EQ(BindMap(d).count("short-w-0"), c.bound ? 1u : 0u);
    EXPECT_FALSE(BindMap(d).count("gang-w-0"));
    ASSERT_EQ(d.reservations.size(), 1u) << "the gang still starves: its reservation stays";
    EXPECT_EQ(d.reservations[0].since_ms, kNow - 1);
    if (!c.bound) {
      const JobUpdate* u = FindJob(d, s, "short");
      ASSERT_NE(u, nullptr);
      EXPECT_NE(u->message.find("reserved for a starving job"), std::string::npos) << u->message;
    }
    // Without the reservation the GPUs are free for anyone.
    s.reservations.clear();
    EXPECT_EQ(BindMap(Schedule(s, Conf(false))).count("short-w-0"), 1u);
  }
}

TEST(ReservationTest, ReservedJobUsesItsCapacityAndTheReservationEnds) {
  ClusterBuilder b;
  b.Now(kNow);
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Job("gang").Tasks("w", 8, "nvidia.com/gpu=1");
  Snapshot s = b.Build();
  s.reservations.push_back({"uid-gang", {{0, Res("nvidia.com/gpu=8")}}, kNow - 1});
  Decision d = Schedule(s, Conf(true));
  EXPECT_EQ(d.binds.size(), 8u);
  EXPECT_TRUE(d.reservations.empty());
}

TEST(ReservationTest, ChoosesNodesWithTheMostRoomFirst) {
  ClusterBuilder b;
  b.Now(kNow);
  b.Node("n1").Resources("cpu=64").Gpus(8);
  b.Node("n2").Resources("cpu=64").Gpus(8);
  b.Node("n3").Resources("cpu=64").Gpus(8);
  b.Job("a").Running("w", 1, "nvidia.com/gpu=5", "n1");
  b.Job("b").Running("w", 1, "nvidia.com/gpu=2", "n2");
  b.Job("c").Running("w", 1, "nvidia.com/gpu=6", "n3");
  b.Job("gang").Tasks("w", 2, "nvidia.com/gpu=4");
  Snapshot s = b.Build();
  Decision d = Schedule(s, Conf(true));
  EXPECT_TRUE(d.binds.empty());
  ASSERT_EQ(d.reservations.size(), 1u);
  EXPECT_EQ(d.reservations[0].job_uid, "uid-gang");
  ASSERT_EQ(d.reservations[0].nodes.size(), 1u);
  EXPECT_EQ(d.reservations[0].nodes[0].first, 1) << "n2 has the most idle GPUs";
  EXPECT_EQ(d.reservations[0].nodes[0].second, Res("nvidia.com/gpu=8"));
  EXPECT_EQ(d.reservations[0].since_ms, kNow);

  // A job too small to count as large gets no reservation.
  ClusterBuilder b2 = b;
  b2.Job("single").Tasks("w", 1, "nvidia.com/gpu=8");
  Snapshot s2 = b2.Build();
  Decision d2 = Schedule(s2, Conf(true));
  ASSERT_EQ(d2.reservations.size(), 1u);
  EXPECT_EQ(d2.reservations[0].job_uid, "uid-gang");
}

}  // namespace
}  // namespace etna::sched
