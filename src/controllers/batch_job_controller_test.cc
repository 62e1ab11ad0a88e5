// The batch/v1 Job controller, driven synchronously over the in-process API (real admission):
// pods to parallelism and completions, Indexed Jobs, counting through the tracking finalizer,
// back-off and backoffLimit, the active deadline, suspension, the pod failure policy, TTL after
// finishing, work queues, and a gang through the podgroup controller.
#include "controllers/batch_job_controller.h"

#include <gtest/gtest.h>

#include "api/types/batch_job.h"
#include "common/time.h"
#include "controllers/podgroup_controller.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

namespace types = etna::api::types;
using nlohmann::json;

json BatchJob(const std::string& name, json spec) {
  json job = {{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec",
               {{"template",
                 {{"spec",
                   {{"restartPolicy", "Never"},
                    {"containers",
                     {{{"name", "c"},
                       {"image", "busybox"},
                       {"resources", {{"requests", {{"cpu", "1"}}}}}}}}}}}}}}};
  job["spec"].update(spec);
  return job;
}

class BatchJobTest : public testing::ControllerTest {
 protected:
  void SetUp() override {
    jobs_ = std::make_unique<BatchJobController>(Options());
    pgs_ = std::make_unique<PodGroupController>(Options());
    sync_ = [this] { return SyncUntilIdle({jobs_.get(), pgs_.get()}); };
  }

  // The pods of batch Job `job`, by name (terminal ones too).
  std::map<std::string, json> Pods(const std::string& job) {
    std::map<std::string, json> out;
    for (json& p :
         List("pods", "default", "labelSelector=batch.kubernetes.io%2Fjob-name%3D" + job)) {
      out[p["metadata"]["name"].get<std::string>()] = p;
    }
    return out;
  }
  std::vector<std::string> Active(const std::string& job) {
    std::vector<std::string> out;
    for (auto& [name, pod] : Pods(job)) {
      types::Pod view(pod);
      if (!view.IsTerminal() && !view.IsDeleting()) out.push_back(name);
    }
    return out;
  }
  json Status(const std::string& job) { return (*Get("jobs", "default", job))["status"]; }
  std::string Condition(const std::string& job, const std::string& type) {
    for (const json& c : Status(job).value("conditions", json::array())) {
      if (c["type"] == type) return c.value("status", "") + "/" + c.value("reason", "");
    }
    return "";
  }
  // Binds and ends pod `name` with `phase` (and the container's exit code).
  void End(const std::string& name, const std::string& phase, int exit_code = 0) {
    Bind(name);
    json terminated = {{"exitCode", exit_code}, {"finishedAt", FormatRfc3339(clock_.NowMs())}};
    json status = {
        {"phase", phase},
        {"containerStatuses",
         {{{"name", "c"}, {"restartCount", 0}, {"state", {{"terminated", terminated}}}}}}};
    auto r =
        rest().MergePatch(client::Path("pods", "default", name), {{"status", status}}, "status");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  bool HasEvent(const std::string& reason) {
    jobs_->events().Flush();
    for (const json& e : List("events", "default")) {
      if (e.value("reason", "") == reason) return true;
    }
    return false;
  }

  std::unique_ptr<BatchJobController> jobs_;
  std::unique_ptr<PodGroupController> pgs_;
};

TEST_F(BatchJobTest, RunsParallelismPodsUntilCompletionsSucceedCountingEachOnce) {
  json job =
      MustCreate("jobs", "default", BatchJob("train", {{"completions", 3}, {"parallelism", 2}}));
  const std::string uid = job["metadata"]["uid"];
  EXPECT_EQ(job["spec"]["selector"]["matchLabels"][types::kBatchControllerUidLabel], uid);
  Sync();
  auto active = Active("train");
  ASSERT_EQ(active.size(), 2u);
  json pod = Pods("train")[active[0]];
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "Job");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["apiVersion"], "batch/v1");
  EXPECT_EQ(pod["metadata"]["labels"][types::kLegacyJobNameLabel], "train");
  EXPECT_EQ(pod["metadata"]["finalizers"], json::array({types::kJobTrackingFinalizer}));
  EXPECT_EQ(Status("train")["active"], 2);
  EXPECT_TRUE(Status("train").contains("startTime"));

  End(active[0], "Succeeded");
  End(active[1], "Succeeded");
  Sync();
  EXPECT_EQ(Status("train")["succeeded"], 2);
  EXPECT_EQ(Status("train")["uncountedTerminatedPods"], json::object());
  EXPECT_EQ(Pods("train")[active[0]]["metadata"].value("finalizers", json::array()), json::array());
  ASSERT_EQ(Active("train").size(), 1u);  // one more for the third completion

  // A counted pod deleted is not run again.
  ASSERT_TRUE(rest().Delete(client::Path("pods", "default", active[0]), 0).ok());
  Sync();
  EXPECT_EQ(Active("train").size(), 1u);
  EXPECT_EQ(Status("train")["succeeded"], 2);

  End(Active("train")[0], "Succeeded");
  Sync();
  EXPECT_EQ(Condition("train", "Complete"), "True/CompletionsReached");
  EXPECT_EQ(Status("train")["succeeded"], 3);
  EXPECT_EQ(Status("train")["active"], 0);
  EXPECT_TRUE(Status("train").contains("completionTime"));
  EXPECT_EQ(Pods("train").size(), 2u);  // the third and the one not deleted
  EXPECT_TRUE(HasEvent("Completed"));
}

TEST_F(BatchJobTest, IndexedJobRunsEachIndexOnceWithItsIndexInNameEnvAndHostname) {
  MustCreate(
      "jobs", "default",
      BatchJob("idx", {{"completions", 3}, {"parallelism", 3}, {"completionMode", "Indexed"}}));
  Sync();
  std::map<int64_t, std::string> by_index;
  for (auto& [name, pod] : Pods("idx")) {
    std::string index = pod["metadata"]["annotations"][types::kJobCompletionIndexAnnotation];
    by_index[std::stoll(index)] = name;
    EXPECT_EQ(name.rfind("idx-" + index + "-", 0), 0u) << name;
    EXPECT_EQ(pod["spec"]["hostname"], "idx-" + index);
    EXPECT_EQ(pod["spec"]["containers"][0]["env"][0],
              json({{"name", "JOB_COMPLETION_INDEX"}, {"value", index}}));
  }
  ASSERT_EQ(by_index.size(), 3u);
  End(by_index[1], "Succeeded");
  End(by_index[0], "Failed", 1);
  Sync();
  EXPECT_EQ(Status("idx")["completedIndexes"], "1");
  EXPECT_EQ(Status("idx")["failed"], 1);
  EXPECT_EQ(Active("idx").size(), 1u);  // index 2; index 0 waits out the back-off
  clock_.Advance(10'000);
  Sync();
  auto active = Active("idx");
  ASSERT_EQ(active.size(), 2u);
  for (const std::string& name : active) {
    if (name.rfind("idx-0-", 0) == 0) End(name, "Succeeded");
    if (name.rfind("idx-2-", 0) == 0) End(name, "Succeeded");
  }
  Sync();
  EXPECT_EQ(Status("idx")["completedIndexes"], "0-2");
  EXPECT_EQ(Condition("idx", "Complete"), "True/CompletionsReached");
}

TEST_F(BatchJobTest, FailuresBackOffAndPastBackoffLimitFailTheJob) {
  MustCreate("jobs", "default", BatchJob("flaky", {{"backoffLimit", 1}}));
  Sync();
  End(Active("flaky")[0], "Failed", 1);
  Sync();
  EXPECT_TRUE(Active("flaky").empty());  // 10 s back-off first
  clock_.Advance(9'000);
  Sync();
  EXPECT_TRUE(Active("flaky").empty());
  clock_.Advance(1'000);
  Sync();
  ASSERT_EQ(Active("flaky").size(), 1u);
  End(Active("flaky")[0], "Failed", 1);
  Sync();
  EXPECT_EQ(Condition("flaky", "Failed"), "True/BackoffLimitExceeded");
  EXPECT_EQ(Status("flaky")["failed"], 2);
  EXPECT_TRUE(HasEvent("BackoffLimitExceeded"));
  clock_.Advance(60'000);
  Sync();
  EXPECT_TRUE(Active("flaky").empty());  // no replacement once failed
}

TEST_F(BatchJobTest, ActiveDeadlineFailsTheJobAndStopsItsPods) {
  MustCreate("jobs", "default", BatchJob("slow", {{"activeDeadlineSeconds", 30}}));
  Sync();
  ASSERT_EQ(Active("slow").size(), 1u);
  Bind(Active("slow")[0]);
  clock_.Advance(31'000);
  Sync();
  EXPECT_EQ(Condition("slow", "Failed"), "True/DeadlineExceeded");
  EXPECT_TRUE(Active("slow").empty());
  SyncFinishingDeletes();
}

TEST_F(BatchJobTest, SuspendDeletesPodsUncountedAndResumeStartsAgain) {
  MustCreate("jobs", "default", BatchJob("s", {{"suspend", true}}));
  Sync();
  EXPECT_TRUE(Pods("s").empty());
  EXPECT_EQ(Condition("s", "Suspended"), "True/JobSuspended");
  EXPECT_FALSE(Status("s").contains("startTime"));
  ASSERT_TRUE(
      rest()
          .MergePatch(client::Path("jobs", "default", "s"), {{"spec", {{"suspend", false}}}})
          .ok());
  Sync();
  EXPECT_EQ(Condition("s", "Suspended"), "False/JobResumed");
  EXPECT_TRUE(Status("s").contains("startTime"));
  ASSERT_EQ(Active("s").size(), 1u);
  std::string pod = Active("s")[0];
  Bind(pod);
  ASSERT_TRUE(rest()
                  .MergePatch(client::Path("jobs", "default", "s"), {{"spec", {{"suspend", true}}}})
                  .ok());
  Sync();
  EXPECT_TRUE(Active("s").empty());
  SetPhase(pod, "Failed", 143);  // the agent stops it
  SyncFinishingDeletes();
  EXPECT_EQ(Status("s")["failed"], 0);
  EXPECT_TRUE(Pods("s").empty());
  EXPECT_TRUE(HasEvent("Suspended"));
  EXPECT_TRUE(HasEvent("Resumed"));
}

TEST_F(BatchJobTest, PodFailurePolicyIgnoresAndFailsByExitCode) {
  json policy = {
      {"rules",
       {{{"action", "Ignore"}, {"onExitCodes", {{"operator", "In"}, {"values", {3}}}}},
        {{"action", "FailJob"},
         {"onExitCodes", {{"containerName", "c"}, {"operator", "In"}, {"values", {42}}}}}}}};
  MustCreate("jobs", "default", BatchJob("p", {{"backoffLimit", 0}, {"podFailurePolicy", policy}}));
  Sync();
  End(Active("p")[0], "Failed", 3);
  Sync();
  EXPECT_EQ(Status("p")["failed"], 0);  // ignored: not counted, replaced
  EXPECT_EQ(Condition("p", "Failed"), "");
  ASSERT_EQ(Active("p").size(), 1u);
  std::string pod = Active("p")[0];
  End(pod, "Failed", 42);
  Sync();
  EXPECT_EQ(Condition("p", "Failed"), "True/PodFailurePolicy");
  const json conditions = Status("p")["conditions"];
  EXPECT_EQ(conditions.back()["message"],
            "Container c for pod default/" + pod +
                " failed with exit code 42 matching FailJob rule at index 1");
}

// Every status the Job passes through: whoever sees Complete sees all its successes counted
// (Kubernetes adds the finished condition only once uncountedTerminatedPods is empty).
TEST_F(BatchJobTest, TheCompleteConditionComesWithEverySuccessCounted) {
  ASSERT_TRUE(rest()
                  .Create(client::Path("jobs", "default"),
                          BatchJob("counted", {{"completions", 2}, {"parallelism", 2}}))
                  .ok());
  Sync();
  auto watcher = api_.store().Watch("/", api_.store().CurrentRevision());
  ASSERT_TRUE(watcher.ok());
  for (const std::string& pod : Active("counted")) End(pod, "Succeeded");
  Sync();
  ASSERT_EQ(Condition("counted", "Complete"), "True/CompletionsReached");
  int complete_writes = 0;
  while (true) {
    auto next = (*watcher)->Next(std::chrono::milliseconds(0));  // writes queue synchronously
    ASSERT_TRUE(next.ok());
    if (!next->has_value()) break;
    const store::Event& e = **next;
    json object = json::parse(e.value);
    if (object["kind"] != "Job" || object["metadata"]["name"] != "counted") continue;
    json status = object.value("status", json::object());
    bool complete = false;
    for (const json& c : status.value("conditions", json::array()))
      complete |= c["type"] == "Complete";
    if (!complete) continue;
    ++complete_writes;
    EXPECT_EQ(status["succeeded"], 2) << status.dump();
    EXPECT_EQ(status["uncountedTerminatedPods"], json::object()) << status.dump();
  }
  EXPECT_GE(complete_writes, 1);
}

TEST_F(BatchJobTest, WorkQueueCompletesWhenOneSucceededAndNoneIsActive) {
  MustCreate("jobs", "default", BatchJob("wq", {{"parallelism", 2}}));
  Sync();
  auto active = Active("wq");
  ASSERT_EQ(active.size(), 2u);
  End(active[0], "Succeeded");
  Sync();
  EXPECT_EQ(Active("wq").size(), 1u);  // no new pod once one succeeded
  EXPECT_EQ(Condition("wq", "Complete"), "");
  End(active[1], "Succeeded");
  Sync();
  EXPECT_EQ(Condition("wq", "Complete"), "True/CompletionsReached");
}

TEST_F(BatchJobTest, TtlAfterFinishedDeletesTheJob) {
  MustCreate("jobs", "default", BatchJob("t", {{"ttlSecondsAfterFinished", 60}}));
  Sync();
  End(Active("t")[0], "Succeeded");
  Sync();
  EXPECT_EQ(Condition("t", "Complete"), "True/CompletionsReached");
  clock_.Advance(59'000);
  Sync();
  EXPECT_TRUE(Get("jobs", "default", "t"));
  clock_.Advance(2'000);
  Sync();
  EXPECT_FALSE(Get("jobs", "default", "t"));
}

TEST_F(BatchJobTest, DeletingTheJobLetsItsTrackedPodsGo) {
  MustCreate("jobs", "default", BatchJob("gone", {{"parallelism", 2}, {"completions", 2}}));
  Sync();
  auto active = Active("gone");
  ASSERT_EQ(active.size(), 2u);
  End(active[0], "Failed", 1);
  Bind(active[1]);
  ASSERT_TRUE(rest().Delete(client::Path("jobs", "default", "gone"), -1, "Background").ok());
  SyncFinishingDeletes();
  EXPECT_TRUE(Pods("gone").empty()) << Pods("gone").begin()->second.dump();
}

TEST_F(BatchJobTest, GroupMinMemberMakesOneGangOwnedByTheJob) {
  json job = BatchJob("gang", {{"parallelism", 2}, {"completions", 2}});
  job["spec"]["template"]["spec"]["schedulerName"] = "volcano";
  job["spec"]["template"]["metadata"]["annotations"] = {
      {"scheduling.volcano.sh/group-min-member", "2"}};
  json made = MustCreate("jobs", "default", job);
  Sync();
  const std::string group = "podgroup-" + made["metadata"]["uid"].get<std::string>();
  auto pg = Get("podgroups", "default", group);
  ASSERT_TRUE(pg);
  EXPECT_EQ((*pg)["spec"]["minMember"], 2);
  EXPECT_EQ((*pg)["spec"]["minResources"]["cpu"], "2");
  EXPECT_EQ((*pg)["metadata"]["ownerReferences"][0]["name"], "gang");
  for (auto& [name, pod] : Pods("gang")) {
    EXPECT_EQ(pod["metadata"]["annotations"]["scheduling.k8s.io/group-name"], group) << name;
  }
}

}  // namespace
}  // namespace etna::controllers
