// The job controller against the in-process API (admission included): pods and PodGroup as
// Volcano writes them, the state machine, policies, Commands, TTL and restarts.
#include "controllers/job_controller.h"

#include "controllers/job_pods.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

using common_testing::WaitFor;
using nlohmann::json;
using testing::Job;
using testing::Task;

std::string Env(const json& pod, const std::string& name) {
  for (const json& e : pod["spec"]["containers"][0].value("env", json::array())) {
    if (e.value("name", "") == name) return e.value("value", "");
  }
  return "<unset>";
}

// The tests drive the controller synchronously (Sync) but for the last, which starts it.
class JobControllerTest : public testing::ControllerTest {
 protected:
  void SetUp() override {
    controller_ = std::make_unique<JobController>(Options());
    sync_ = [this] { return SyncUntilIdle({controller_.get()}); };
  }
  void Start() {
    controller_ = std::make_unique<JobController>(Options());
    ASSERT_TRUE(controller_->Start());
  }
  void TearDown() override {
    if (controller_) controller_->Stop();
  }
  // Whether `job` has `n` pods, all of job version `version`.
  bool Restarted(const std::string& job, size_t n, const std::string& version) {
    auto pods = JobPods(job);
    if (pods.size() != n) return false;
    for (auto& [name, p] : pods) {
      if (p["metadata"]["labels"]["volcano.sh/job-version"] != version) return false;
    }
    return true;
  }
  std::unique_ptr<JobController> controller_;
};

// The reconcile that creates a job's pods counts them (Pending) in the status it writes, so
// their arrival in the cache costs no second status write.
TEST_F(JobControllerTest, ANewJobsStatusIsWrittenOnceWithItsNewPodsCounted) {
  json job = MustCreate("vcjob", "default", Job("once", {Task("worker", 2, "1")}));
  int64_t created = std::stoll(job["metadata"]["resourceVersion"].get<std::string>());
  auto watcher = api_.store().Watch("/", created);
  ASSERT_TRUE(watcher.ok());
  Sync();
  int job_writes = 0;
  for (;;) {
    auto e = (*watcher)->Next(std::chrono::milliseconds(0));
    ASSERT_TRUE(e.ok());
    if (!*e) break;
    const std::string& key = (*e)->key;
    if (key.find("jobs") != std::string::npos && key.ends_with("/default/once")) ++job_writes;
  }
  EXPECT_EQ(job_writes, 1);
  auto got = Get("vcjob", "default", "once");
  ASSERT_TRUE(got);
  EXPECT_EQ((*got)["status"]["pending"], 2) << got->dump();
}

TEST_F(JobControllerTest, CreatesPodGroupAndPodsAsVolcanoWithPytorchEnv) {
  json job =
      MustCreate("vcjob", "default",
                 Job("pt", {Task("master", 1, "2"), Task("worker", 2, "1")},
                     {{"plugins", {{"pytorch", {"--port=23456"}}, {"env", json::array()}}}}));
  std::string uid = job["metadata"]["uid"];
  Sync();
  ASSERT_EQ(JobPods("pt").size(), 3u);
  auto pods = JobPods("pt");
  ASSERT_TRUE(pods.count("pt-master-0") && pods.count("pt-worker-0") && pods.count("pt-worker-1"));
  const json& w1 = pods["pt-worker-1"];
  EXPECT_EQ(w1["metadata"]["labels"]["volcano.sh/task-spec"], "worker");
  EXPECT_EQ(w1["metadata"]["labels"]["volcano.sh/task-index"], "1");
  EXPECT_EQ(w1["metadata"]["labels"]["volcano.sh/job-version"], "0");
  EXPECT_EQ(w1["metadata"]["labels"]["volcano.sh/queue-name"], "default");
  EXPECT_EQ(w1["metadata"]["labels"]["volcano.sh/job-namespace"], "default");
  EXPECT_EQ(w1["metadata"]["annotations"]["volcano.sh/task-spec-index"], "1");
  EXPECT_EQ(w1["metadata"]["annotations"]["scheduling.k8s.io/group-name"], "pt-" + uid);
  EXPECT_EQ(w1["metadata"]["ownerReferences"][0]["uid"], uid);
  EXPECT_EQ(w1["metadata"]["ownerReferences"][0]["controller"], true);
  EXPECT_EQ(w1["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(w1["spec"]["hostname"], "pt-worker-1");
  EXPECT_EQ(w1["spec"]["subdomain"], "pt");
  for (const auto& [name, rank] : std::vector<std::pair<std::string, std::string>>{
           {"pt-master-0", "0"}, {"pt-worker-0", "1"}, {"pt-worker-1", "2"}}) {
    EXPECT_EQ(Env(pods[name], "MASTER_ADDR"), "pt-master-0.pt") << name;
    EXPECT_EQ(Env(pods[name], "MASTER_PORT"), "23456") << name;
    EXPECT_EQ(Env(pods[name], "WORLD_SIZE"), "3") << name;
    EXPECT_EQ(Env(pods[name], "RANK"), rank) << name;
  }
  EXPECT_EQ(Env(w1, "VC_TASK_INDEX"), "1");
  EXPECT_EQ(Env(w1, "VC_WORKER_HOSTS"), "pt-worker-0.pt,pt-worker-1.pt");
  EXPECT_EQ(Env(w1, "VC_WORKER_NUM"), "2");
  auto pg = Get("podgroups", "default", "pt-" + uid);
  ASSERT_TRUE(pg);
  EXPECT_EQ((*pg)["spec"]["minMember"], 3);
  EXPECT_EQ((*pg)["spec"]["minTaskMember"]["worker"], 2);
  EXPECT_EQ((*pg)["spec"]["queue"], "default");
  EXPECT_EQ((*pg)["spec"]["minResources"]["cpu"], "4");
  EXPECT_EQ((*pg)["spec"]["minResources"]["memory"], "3Gi");
  EXPECT_EQ((*pg)["metadata"]["ownerReferences"][0]["uid"], uid);
  auto cm = Get("configmaps", "default", "pt-svc");
  ASSERT_TRUE(cm);
  EXPECT_EQ((*cm)["data"]["worker.host"], "pt-worker-0.pt\npt-worker-1.pt");
  auto j = Get("vcjob", "default", "pt");
  ASSERT_TRUE(j);
  ASSERT_EQ(j->value("/status/pending"_json_pointer, 0), 3);
  EXPECT_EQ(JobPhase("pt"), "Pending");
}

TEST_F(JobControllerTest, SeedChiefTaskNamedWithMasterFlag) {
  MustCreate("vcjob", "default",
             Job("bert", {Task("chief", 1), Task("worker", 3)},
                 {{"plugins", {{"pytorch", {"--master=chief", "--worker=worker"}}}},
                  {"priorityClassName", "high"}}));
  Sync();
  ASSERT_EQ(JobPods("bert").size(),
            4u);  // "high" is one of the priority classes the server starts with
  auto pods = JobPods("bert");
  EXPECT_EQ(Env(pods["bert-chief-0"], "RANK"), "0");
  EXPECT_EQ(Env(pods["bert-worker-2"], "RANK"), "3");
  EXPECT_EQ(Env(pods["bert-worker-2"], "WORLD_SIZE"), "4");
  EXPECT_EQ(Env(pods["bert-worker-2"], "MASTER_ADDR"), "bert-chief-0.bert");
  EXPECT_EQ(pods["bert-chief-0"]["spec"]["priorityClassName"], "high");
  EXPECT_EQ(pods["bert-chief-0"]["spec"]["priority"], 100);
}

TEST_F(JobControllerTest, RunningThenCompletedWhenAllPodsSucceed) {
  MustCreate("vcjob", "default", Job("done", {Task("w", 2)}));
  Sync();
  ASSERT_EQ(JobPods("done").size(), 2u);
  SetAll("done", "Running");
  Sync();
  ASSERT_EQ(JobPhase("done"), "Running");
  SetAll("done", "Succeeded");
  Sync();
  ASSERT_EQ(JobPhase("done"), "Completed");
  auto j = Get("vcjob", "default", "done");
  EXPECT_EQ((*j)["status"]["succeeded"], 2);
  EXPECT_EQ((*j)["status"]["taskStatusCount"]["w"]["phase"]["Succeeded"], 2);
}

TEST_F(JobControllerTest, PodFailedRestartJobHonoursMaxRetryThenFails) {
  MustCreate(
      "vcjob", "default",
      Job("rj", {Task("w", 2)},
          {{"maxRetry", 2}, {"policies", {{{"event", "PodFailed"}, {"action", "RestartJob"}}}}}));
  Sync();
  ASSERT_EQ(JobPods("rj").size(), 2u);
  SetAll("rj", "Running");
  Sync();
  ASSERT_EQ(JobPhase("rj"), "Running");
  SetPhase("rj-w-0", "Failed", 1);
  // Restarted: both pods are replaced by version 1 pods.
  SyncFinishingDeletes();
  ASSERT_TRUE(Restarted("rj", 2, "1"));
  ASSERT_EQ(JobPhase("rj"), "Pending");
  auto j = Get("vcjob", "default", "rj");
  EXPECT_EQ((*j)["status"]["retryCount"], 1);
  EXPECT_EQ(JobPods("rj")["rj-w-0"]["metadata"]["labels"]["volcano.sh/job-retry-count"], "1");
  SetPhase("rj-w-1", "Failed", 2);
  Sync();
  ASSERT_EQ(JobPhase("rj"), "Failed");
  j = Get("vcjob", "default", "rj");
  EXPECT_EQ((*j)["status"]["retryCount"], 2);
  EXPECT_EQ((*j)["status"]["state"]["reason"], "MaxRetryExceeded");
  EXPECT_TRUE(MetricsHave(R"(etna_job_retries_total{queue_name="default"} 2)"))
      << registry_.Render();
  EXPECT_TRUE(MetricsHave(R"(etna_job_phase_transitions_total{phase="Restarting"} 2)"));
  EXPECT_TRUE(MetricsHave(R"(etna_job_phase_transitions_total{phase="Failed"} 1)"));
}

TEST_F(JobControllerTest, RestartSurvivesAConflictOnItsStatusWrite) {
  MustCreate("vcjob", "default",
             Job("cj", {Task("w", 2)},
                 {{"policies", {{{"event", "PodFailed"}, {"action", "RestartJob"}}}}}));
  Sync();
  ASSERT_EQ(JobPods("cj").size(), 2u);
  SetAll("cj", "Running");
  Sync();
  ASSERT_EQ(JobPhase("cj"), "Running");
  // The write of the Restarting phase meets a stale resourceVersion: no pod may be deleted
  // before the restart is on disk, or the failure that caused it would be forgotten.
  api_.ConflictNext("PUT", "/jobs/cj/status");
  SetPhase("cj-w-0", "Failed", 1);
  SyncFinishingDeletes();
  ASSERT_TRUE(Restarted("cj", 2, "1"));
  EXPECT_EQ((*Get("vcjob", "default", "cj"))["status"]["retryCount"], 1);
}

TEST_F(JobControllerTest, FailedPodWithoutPolicyStaysFailedAndFailsTheJob) {
  MustCreate("vcjob", "default", Job("np", {Task("w", 2)}));
  Sync();
  ASSERT_EQ(JobPods("np").size(), 2u);
  SetAll("np", "Running");
  SetPhase("np-w-0", "Failed", 3);
  SetPhase("np-w-1", "Succeeded");
  Sync();
  ASSERT_EQ(JobPhase("np"), "Failed");
  auto j = Get("vcjob", "default", "np");
  EXPECT_EQ((*j)["status"]["failed"], 1);
  EXPECT_EQ(JobPods("np").size(), 2u);
}

TEST_F(JobControllerTest, EvictedPodIsRecreated) {
  MustCreate("vcjob", "default", Job("ev", {Task("w", 2)}));
  Sync();
  ASSERT_EQ(JobPods("ev").size(), 2u);
  SetAll("ev", "Running");
  Sync();
  ASSERT_EQ(JobPhase("ev"), "Running");
  std::string old_uid = JobPods("ev")["ev-w-1"]["metadata"]["uid"];
  ASSERT_TRUE(rest().Evict("default", "ev-w-1").ok());
  // The agent finishes the graceful delete.
  ASSERT_TRUE(rest().Delete(client::Path("pods", "default", "ev-w-1"), 0).ok());
  Sync();
  ASSERT_TRUE(JobPods("ev").count("ev-w-1"));
  ASSERT_NE(JobPods("ev")["ev-w-1"]["metadata"]["uid"], old_uid);
  auto pod = JobPods("ev")["ev-w-1"];
  EXPECT_FALSE(pod["spec"].contains("nodeName"));
  EXPECT_EQ(pod["metadata"]["labels"]["volcano.sh/job-version"], "0");
}

TEST_F(JobControllerTest, AbortCommandThenResume) {
  json job = MustCreate("vcjob", "default", Job("ab", {Task("w", 2)}));
  Sync();
  ASSERT_EQ(JobPods("ab").size(), 2u);
  json target = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
                 {"kind", "Job"},
                 {"name", "ab"},
                 {"uid", job["metadata"]["uid"]}};
  MustCreate("commands", "default",
             {{"apiVersion", "bus.volcano.sh/v1alpha1"},
              {"kind", "Command"},
              {"metadata", {{"name", "ab-abort"}, {"namespace", "default"}}},
              {"action", "AbortJob"},
              {"target", target}});
  Sync();
  ASSERT_EQ(JobPhase("ab"), "Aborted");
  EXPECT_EQ(JobPods("ab").size(), 0u);
  EXPECT_FALSE(Get("commands", "default", "ab-abort"));
  MustCreate("commands", "default",
             {{"apiVersion", "bus.volcano.sh/v1alpha1"},
              {"kind", "Command"},
              {"metadata", {{"name", "ab-resume"}, {"namespace", "default"}}},
              {"action", "ResumeJob"},
              {"target", target}});
  Sync();
  ASSERT_EQ(JobPods("ab").size(), 2u);
  ASSERT_EQ(JobPhase("ab"), "Pending");
  auto j = Get("vcjob", "default", "ab");
  EXPECT_EQ((*j)["status"]["retryCount"], 1);
  EXPECT_EQ((*j)["status"]["version"], 1);
}

TEST_F(JobControllerTest, TtlAfterFinishedDeletesJobPodsAndPodGroup) {
  json job =
      MustCreate("vcjob", "default", Job("ttl", {Task("w", 1)}, {{"ttlSecondsAfterFinished", 60}}));
  Sync();
  ASSERT_EQ(JobPods("ttl").size(), 1u);
  SetAll("ttl", "Succeeded");
  Sync();
  ASSERT_EQ(JobPhase("ttl"), "Completed");
  clock_.Advance(30'000);
  Sync();
  EXPECT_EQ(JobPhase("ttl"), "Completed");
  clock_.Advance(31'000);
  Sync();
  ASSERT_EQ(JobPhase("ttl"), "<gone>");
  EXPECT_EQ(JobPods("ttl").size(), 0u);
  EXPECT_FALSE(Get("podgroups", "default", "ttl-" + job["metadata"]["uid"].get<std::string>()));
}

TEST_F(JobControllerTest, DependsOnWaitsForTheMasterToRun) {
  json worker = Task("worker", 2);
  worker["dependsOn"] = {{"name", {"master"}}};
  MustCreate("vcjob", "default", Job("dep", {Task("master", 1), worker}));
  Sync();
  ASSERT_EQ(JobPods("dep").size(), 1u);
  EXPECT_TRUE(JobPods("dep").count("dep-master-0"));
  Bind("dep-master-0");
  SetPhase("dep-master-0", "Running");
  Sync();
  ASSERT_EQ(JobPods("dep").size(), 3u);
}

// The worker and informer threads, and a restart of them with half-done work.
TEST_F(JobControllerTest, RestartedControllerCreatesNoDuplicates) {
  Start();
  MustCreate("vcjob", "default", Job("rs", {Task("w", 3)}));
  ASSERT_TRUE(WaitFor([&] { return JobPods("rs").size() == 3; }));
  controller_->Stop();
  auto before = JobPods("rs");
  ASSERT_TRUE(rest().Delete(client::Path("pods", "default", "rs-w-2")).ok());
  Start();
  ASSERT_TRUE(WaitFor([&] { return JobPods("rs").count("rs-w-2") == 1; }));
  auto after = JobPods("rs");
  EXPECT_EQ(after.size(), 3u);
  EXPECT_EQ(after["rs-w-0"]["metadata"]["uid"], before["rs-w-0"]["metadata"]["uid"]);
  EXPECT_EQ(after["rs-w-1"]["metadata"]["uid"], before["rs-w-1"]["metadata"]["uid"]);
  EXPECT_EQ(List("podgroups", "default").size(), 1u);
}

}  // namespace
}  // namespace etna::controllers
