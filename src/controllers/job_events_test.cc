// The job controller's events and actions beyond the basics: RestartPod, PodEvicted from the
// scheduler's DisruptionTarget mark, PodPending with a timeout, exit-code policies, minSuccess
// and TaskCompleted -> CompleteJob.
#include "controllers/job_controller.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

using nlohmann::json;
using testing::Job;

// A task with policies of its own.
json Task(const std::string& name, int replicas, json policies = json::array()) {
  json t = testing::Task(name, replicas);
  if (!policies.empty()) t["policies"] = policies;
  return t;
}

json Policy(const std::string& event, const std::string& action) {
  return {{"event", event}, {"action", action}};
}

class JobEventsTest : public testing::ControllerTest {
 protected:
  void SetUp() override {
    controller_ = std::make_unique<JobController>(Options());
    sync_ = [this] { return SyncUntilIdle({controller_.get()}); };
  }
  json Status(const std::string& job) {
    return Get("vcjob", "default", job).value_or(json())["status"];
  }
  std::unique_ptr<JobController> controller_;
};

TEST_F(JobEventsTest, RestartPodReplacesOnlyThatPod) {
  MustCreate("vcjob", "default", Job("rp", {Task("w", 2, {Policy("PodFailed", "RestartPod")})}));
  Sync();
  ASSERT_EQ(JobPods("rp").size(), 2u);
  auto before = JobPods("rp");
  SetPhase("rp-w-0", "Failed", 1);
  Sync();
  auto after = JobPods("rp");
  ASSERT_TRUE(after.count("rp-w-0"));
  ASSERT_NE(after["rp-w-0"]["metadata"]["uid"], before["rp-w-0"]["metadata"]["uid"]);
  EXPECT_EQ(JobPods("rp")["rp-w-1"]["metadata"]["uid"], before["rp-w-1"]["metadata"]["uid"]);
  SyncFinishingDeletes();
  ASSERT_EQ(JobPhase("rp"), "Pending");
  EXPECT_EQ(Status("rp")["retryCount"], 1);
  EXPECT_EQ(Status("rp")["version"], 0);
}

TEST_F(JobEventsTest, RestartTaskReplacesThatTasksPods) {
  MustCreate("vcjob", "default",
             Job("rt", {Task("a", 2, {Policy("PodFailed", "RestartTask")}), Task("b", 1)}));
  Sync();
  ASSERT_EQ(JobPods("rt").size(), 3u);
  auto before = JobPods("rt");
  SetPhase("rt-a-1", "Failed", 1);
  Sync();
  auto after = JobPods("rt");
  ASSERT_EQ(after.size(), 3u);
  ASSERT_NE(after["rt-a-0"]["metadata"]["uid"], before["rt-a-0"]["metadata"]["uid"]);
  ASSERT_NE(after["rt-a-1"]["metadata"]["uid"], before["rt-a-1"]["metadata"]["uid"]);
  EXPECT_EQ(JobPods("rt")["rt-b-0"]["metadata"]["uid"], before["rt-b-0"]["metadata"]["uid"]);
  SyncFinishingDeletes();
  ASSERT_EQ(JobPhase("rt"), "Pending");
  EXPECT_EQ(Status("rt")["retryCount"], 1);
}

TEST_F(JobEventsTest, DisruptionTargetIsPodEvicted) {
  MustCreate("vcjob", "default",
             Job("dt", {Task("w", 2)}, {{"policies", {Policy("PodEvicted", "RestartJob")}}}));
  Sync();
  ASSERT_EQ(JobPods("dt").size(), 2u);
  SetAll("dt", "Running");
  SyncFinishingDeletes();
  ASSERT_EQ(JobPhase("dt"), "Running");
  json cond = {{"type", "DisruptionTarget"},
               {"status", "True"},
               {"reason", "Preempted"},
               {"message", "preempted by default/hi"}};
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("pods", "default", "dt-w-1"),
                              {{"status", {{"conditions", {cond}}}}}, "status")
                  .ok());
  Sync();  // the restart begins: the victim is still terminating
  ASSERT_EQ(Status("dt").value("version", 0), 1);
  // One restart for one eviction, even after the victim is deleted.
  ASSERT_TRUE(rest().Delete(client::Path("pods", "default", "dt-w-1"), 0).ok() ||
              !Get("pods", "default", "dt-w-1"));
  SyncFinishingDeletes();
  ASSERT_EQ(JobPhase("dt"), "Pending");
  EXPECT_EQ(Status("dt")["retryCount"], 1);
}

TEST_F(JobEventsTest, PodPendingPastTimeoutAborts) {
  MustCreate(
      "vcjob", "default",
      Job("pp", {Task("w", 1)},
          {{"policies", {{{"event", "PodPending"}, {"action", "AbortJob"}, {"timeout", "1m"}}}}}));
  Sync();
  ASSERT_EQ(JobPods("pp").size(), 1u);
  ASSERT_EQ(JobPhase("pp"), "Pending");
  clock_.Advance(30'000);
  Sync();
  EXPECT_EQ(JobPhase("pp"), "Pending");
  clock_.Advance(31'000);
  SyncFinishingDeletes();
  ASSERT_EQ(JobPhase("pp"), "Aborted");
  EXPECT_EQ(Status("pp")["state"]["reason"], "PodPending");
}

TEST_F(JobEventsTest, ExitCodePolicyAborts) {
  MustCreate(
      "vcjob", "default",
      Job("ec", {Task("w", 2)}, {{"policies", {{{"exitCode", 3}, {"action", "AbortJob"}}}}}));
  Sync();
  ASSERT_EQ(JobPods("ec").size(), 2u);
  SetAll("ec", "Running");
  SetPhase("ec-w-0", "Failed", 3);
  SyncFinishingDeletes();
  ASSERT_EQ(JobPhase("ec"), "Aborted");
  // Aborting keeps finished pods and kills the rest.
  EXPECT_TRUE(JobPods("ec").count("ec-w-0"));
  EXPECT_FALSE(JobPods("ec").count("ec-w-1"));
}

TEST_F(JobEventsTest, MinSuccessCompletesEarly) {
  MustCreate("vcjob", "default",
             Job("ms", {Task("w", 3)}, {{"minSuccess", 1}, {"minAvailable", 1}}));
  Sync();
  ASSERT_EQ(JobPods("ms").size(), 3u);
  Bind("ms-w-0");
  SetPhase("ms-w-0", "Succeeded");
  SyncFinishingDeletes();
  ASSERT_EQ(JobPhase("ms"), "Completed");
  ASSERT_EQ(JobPods("ms").size(), 1u);
}

TEST_F(JobEventsTest, TaskCompletedCompletesTheJob) {
  MustCreate(
      "vcjob", "default",
      Job("tc", {Task("master", 1, {Policy("TaskCompleted", "CompleteJob")}), Task("worker", 2)}));
  Sync();
  ASSERT_EQ(JobPods("tc").size(), 3u);
  SetAll("tc", "Running");
  Sync();
  ASSERT_EQ(JobPhase("tc"), "Running");
  SetPhase("tc-master-0", "Succeeded");
  SyncFinishingDeletes();
  ASSERT_EQ(JobPhase("tc"), "Completed");
  ASSERT_EQ(JobPods("tc").size(), 1u);
}

}  // namespace
}  // namespace etna::controllers
