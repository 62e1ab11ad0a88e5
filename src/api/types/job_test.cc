#include "api/types/job.h"

#include <gtest/gtest.h>

#include "api/types/podgroup.h"

namespace etna::api::types {
namespace {

Json TwoTaskJob() {
  return Json::parse(R"({"metadata": {"name": "tf", "uid": "u1"},
      "spec": {"tasks": [{"name": "ps", "replicas": 1},
                         {"name": "worker", "replicas": 3, "minAvailable": 2}]},
      "status": {"version": 2, "retryCount": 1, "state": {"phase": "Running"}}})");
}

TEST(JobTest, MinAvailableDefaultsToTheSumOfReplicas) {
  Json j = TwoTaskJob();
  Job job(j);
  EXPECT_EQ(job.TotalReplicas(), 4);
  EXPECT_EQ(job.MinAvailable(), 4);
  j["spec"]["minAvailable"] = 2;
  EXPECT_EQ(job.MinAvailable(), 2);
  j["spec"]["minAvailable"] = 0;
  EXPECT_EQ(job.MinAvailable(), 0);
}

TEST(JobTest, TasksAndTheirMinAvailable) {
  Json j = TwoTaskJob();
  Job job(j);
  ASSERT_EQ(job.tasks().size(), 2u);
  JobTask ps(job.tasks()[0]), worker(job.tasks()[1]);
  EXPECT_EQ(ps.name(), "ps");
  EXPECT_EQ(ps.MinAvailable(), 1);
  EXPECT_EQ(worker.replicas(), 3);
  EXPECT_EQ(worker.MinAvailable(), 2);
  Json bare = Json::object();
  EXPECT_EQ(JobTask(bare).replicas(), 0);
  EXPECT_EQ(JobTask(bare).MinAvailable(), 0);
  EXPECT_TRUE(JobTask(bare).containers().empty());
}

TEST(JobTest, StatusDefaultsAndPodGroupName) {
  Json j = TwoTaskJob();
  Job job(j);
  EXPECT_EQ(job.version(), 2);
  EXPECT_EQ(job.retry_count(), 1);
  EXPECT_EQ(job.phase(), "Running");
  EXPECT_EQ(job.PodGroupName(), "tf-u1");
  EXPECT_EQ(job.queue(), "default");
  EXPECT_EQ(job.scheduler_name(), "volcano");
  EXPECT_EQ(job.max_retry(), 3);
  Json empty = Json::object();
  EXPECT_EQ(Job(empty).phase(), "");
  EXPECT_EQ(Job(empty).MinAvailable(), 0);
  EXPECT_EQ(Job(empty).version(), 0);
}

TEST(PodGroupTest, GangSizeQueueAndPhase) {
  Json j = Json::parse(R"({"spec": {"minMember": 3, "queue": "q"},
      "status": {"conditions": [{"type": "Unschedulable", "reason": "WaitTimeout",
                                 "message": "m"}]}})");
  PodGroup pg(j);
  EXPECT_EQ(pg.min_member(), 3);
  EXPECT_EQ(pg.MinAvailable(), 3);
  j["spec"]["minAvailable"] = 1;
  EXPECT_EQ(pg.MinAvailable(), 1);
  EXPECT_EQ(pg.queue(), "q");
  EXPECT_EQ(pg.phase(), "Pending");
  ASSERT_NE(pg.ConditionWithReason("WaitTimeout"), nullptr);
  EXPECT_EQ((*pg.ConditionWithReason("WaitTimeout"))["message"], "m");
  EXPECT_EQ(pg.ConditionWithReason("Other"), nullptr);
  Json empty = Json::object();
  EXPECT_EQ(PodGroup(empty).queue(), "default");
  EXPECT_EQ(PodGroup(empty).MinAvailable(), 0);
}

}  // namespace
}  // namespace etna::api::types
