#include "sim/workload.h"

#include <gtest/gtest.h>

#include "common/file.h"

namespace etna::sim {
namespace {

TEST(WorkloadTest, CsvJobsByColumnNameWithDefaults) {
  auto jobs = ParseJobCsv(
      "queue,name,submit_s,duration_s,gpus,tasks,cpu,memory,priority,gpu_models,checkpoint_s\n"
      "research,train,0,3600,8,4,32,256Gi,10,H100|A100,600\n"
      "default,probe,1.5,60,0.25,,,,,,\n",
      "t.csv");
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 2u);
  const SimJob& train = (*jobs)[0];
  EXPECT_EQ(train.queue, "research");
  EXPECT_EQ(train.tasks, 4);
  EXPECT_EQ(train.duration_ms, 3'600'000);
  EXPECT_EQ(train.request.Get(kGpu), 8000);
  EXPECT_EQ(train.request.Get(kCpu), 32000);
  EXPECT_EQ(train.request.Get(kMemory), int64_t{256} << 30);
  EXPECT_EQ(train.priority, 10);
  EXPECT_EQ(train.gpu_models, (std::vector<std::string>{"H100", "A100"}));
  EXPECT_EQ(train.checkpoint_interval_ms, 600'000);
  const SimJob& probe = (*jobs)[1];
  EXPECT_EQ(probe.submit_ms, 1500);
  EXPECT_EQ(probe.tasks, 1);
  EXPECT_EQ(probe.request.Get(kGpu), 250);
  EXPECT_EQ(probe.request.Get(kCpu), 1000);
}

TEST(WorkloadTest, JsonlJobsAndErrorsNamingLineAndField) {
  auto jobs = ParseJobJsonl(
      "{\"name\": \"a\", \"submit_s\": 0, \"duration_s\": 10, \"gpus\": 2}\n\n"
      "{\"name\": \"b\", \"submit_s\": 5, \"duration_s\": 10, \"queue\": \"q\"}\n",
      "t.jsonl");
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  EXPECT_EQ((*jobs)[0].request.Get(kGpu), 2000);
  EXPECT_EQ((*jobs)[1].queue, "q");
  auto bad = ParseJobJsonl("{\"name\": \"a\", \"submit_s\": 0, \"duration_s\": -1}\n", "t.jsonl");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "t.jsonl:1: duration_s: -1 is below 0");
  auto unknown = ParseJobJsonl("{\"name\": \"a\", \"submit\": 0}\n", "t.jsonl");
  EXPECT_EQ(unknown.status().message(), "t.jsonl:1: unknown field \"submit\"");
  auto csv = ParseJobCsv("name,submit_s,duration_s,gpus\nx,0,10,1.5\n", "t.csv");
  ASSERT_FALSE(csv.ok());
  EXPECT_EQ(csv.status().message(),
            "t.csv:2: gpus: 1.5: only a task of one GPU or less may share one");
  auto missing = ParseJobCsv("name,submit_s,duration_s\nx,,10\n", "t.csv");
  EXPECT_EQ(missing.status().message(), "t.csv:2: submit_s: required");
  // A misspelt column would be ignored otherwise.
  auto unknown_column = ParseJobCsv("name,submit_s,duration_s,gpu\nx,0,10,1\n", "t.csv");
  EXPECT_EQ(unknown_column.status().message(), "t.csv:1: unknown column \"gpu\"");
  auto huge = ParseJobCsv("name,submit_s,duration_s,gpus\nx,0,10,1e12\n", "t.csv");
  EXPECT_EQ(huge.status().message(), "t.csv:2: gpus: 1000000000000 is above 1024");
}

TEST(WorkloadTest, OpenbPodsBecomeJobsRunningFromTheirSchedulingToTheirDeletion) {
  auto text = ReadFile(std::string(ETNA_OPENB_DATA) + "/openb_pod_list_default.csv");
  ASSERT_TRUE(text.ok());
  auto pods = ParsePods(*text, "default");
  ASSERT_TRUE(pods.ok()) << pods.status().ToString();
  auto jobs = JobsFromOpenb(*pods, OpenbQueues::kQos);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), pods->size());
  // openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061
  const SimJob& j = (*jobs)[1];
  EXPECT_EQ(j.name, "openb-pod-0001");
  EXPECT_EQ(j.queue, "ls");
  EXPECT_EQ(j.submit_ms, 427'061'000);
  EXPECT_EQ(j.duration_ms, (12'902'960 - 427'061) * 1000LL);
  EXPECT_EQ(j.request.Get(kGpu), 460);
  TracePod timeless = (*pods)[0];
  timeless.deletion_s = -1;
  auto refused = JobsFromOpenb({timeless}, OpenbQueues::kDefault);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("openb-pod-0000"), std::string::npos);
}

}  // namespace
}  // namespace etna::sim
