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

}  // namespace
}  // namespace etna::scheduler
