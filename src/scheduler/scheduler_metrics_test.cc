// The scheduler's Volcano-named metrics after real cycles against the in-process API.
#include "scheduler/scheduler_metrics.h"

#include <gtest/gtest.h>

#include "scheduler/scheduler.h"
#include "scheduler/test_kit.h"

namespace etna::scheduler {
namespace {

using testkit::Kit;
using testkit::WaitFor;

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(SchedulerMetricsTest, QueueGaugesAttemptsAndLatenciesAfterACycle) {
  Kit kit;
  kit.AddNode("n1", 4);
  kit.AddGang("fits", 2, 2, 1);
  kit.AddGang("toobig", 1, 1, 8);
  auto s = kit.MakeScheduler();
  ASSERT_TRUE(WaitFor([&] { return s->cache().Assemble(0).snapshot.tasks.size() == 3; }));
  ASSERT_TRUE(s->RunOnce().ok());
  std::string text = s->metrics_registry().Render();
  EXPECT_TRUE(Has(
      text,
      R"(volcano_queue_allocated_scalar_resources{queue_name="default",resource="nvidia.com/gpu"} 2000)"))
      << text;
  EXPECT_TRUE(Has(
      text,
      R"(volcano_queue_request_scalar_resources{queue_name="default",resource="nvidia.com/gpu"} 10000)"));
  EXPECT_TRUE(Has(text, R"(volcano_queue_weight{queue_name="default"} 1)"));
  EXPECT_TRUE(Has(text, R"(volcano_schedule_attempts_total{result="scheduled"} 1)"));
  EXPECT_TRUE(Has(text, R"(volcano_schedule_attempts_total{result="unschedulable"} 1)"));
  EXPECT_TRUE(Has(text, "volcano_unschedule_job_count 1"));
  EXPECT_TRUE(Has(text, R"(volcano_unschedule_task_count{job_id="default/toobig"} 1)"));
  EXPECT_TRUE(Has(text, R"(etna_queue_pending_jobs{queue_name="default"} 1)"));
  EXPECT_TRUE(Has(text, "volcano_e2e_scheduling_latency_milliseconds_count 1"));
  EXPECT_TRUE(
      Has(text, R"(volcano_action_scheduling_latency_milliseconds_count{action="allocate"} 1)"));
  EXPECT_TRUE(Has(
      text,
      R"(volcano_plugin_scheduling_latency_milliseconds_count{plugin="gang",OnSession="OnSessionOpen"} 1)"));
  EXPECT_TRUE(Has(text, "volcano_task_scheduling_latency_milliseconds_count 2"));
}

TEST(SchedulerMetricsTest, GpuSecondsCountWhatTasksHeldBetweenCycles) {
  sched::Snapshot snap;
  sched::Node node;
  node.name = "n1";
  for (int i = 0; i < 4; ++i) {
    sched::GpuDevice gpu;
    gpu.index = i;
    gpu.model = "H100";
    gpu.memory_mib = 81920;
    if (i == 3) gpu.mig = {{"1g.10gb", 7}};
    node.gpus.push_back(gpu);
  }
  snap.nodes.push_back(node);
  sched::Queue queue;
  queue.name = "research";
  snap.queues.push_back(queue);
  sched::Job job;
  job.queue = 0;
  snap.jobs.push_back(job);
  auto task = [&](sched::TaskStatus status, std::vector<sched::DeviceAllocation> devices) {
    sched::Task t;
    t.ns = "team-a";
    t.job = 0;
    t.node = status == sched::TaskStatus::kPending ? sched::kNone : 0;
    t.status = status;
    t.devices = std::move(devices);
    snap.tasks.push_back(t);
  };
  task(sched::TaskStatus::kRunning, {{.gpu = 0}, {.gpu = 1}});
  task(sched::TaskStatus::kBound, {{.gpu = 2, .milli = 500, .cores_percent = 50}});
  task(sched::TaskStatus::kRunning, {{.gpu = 3, .mig_instance = 0}});
  task(sched::TaskStatus::kPending, {});
  task(sched::TaskStatus::kSucceeded, {{.gpu = 0}});  // ended: holds nothing
  metrics::Registry registry;
  SchedulerMetrics m(&registry);
  m.CountGpuSeconds(snap, 1'000'000);  // the first count only starts it
  EXPECT_EQ(registry.Render().find("etna_gpu_seconds_total{"), std::string::npos);
  m.CountGpuSeconds(snap, 1'010'000);  // within the period: not yet
  EXPECT_EQ(registry.Render().find("etna_gpu_seconds_total{"), std::string::npos);
  m.CountGpuSeconds(snap, 1'020'000);
  m.CountGpuSeconds(snap, 1'021'000);
  std::string text = registry.Render();
  EXPECT_TRUE(
      Has(text, R"(etna_gpu_seconds_total{queue="research",namespace="team-a",model="H100"} 50)"))
      << text;
  EXPECT_TRUE(Has(
      text,
      R"(etna_gpu_seconds_total{queue="research",namespace="team-a",model="H100 MIG 1g.10gb"} 20)"))
      << text;
}

}  // namespace
}  // namespace etna::scheduler
