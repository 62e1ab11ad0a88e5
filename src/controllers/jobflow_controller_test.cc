// The jobflow and jobtemplate controllers against the in-process API: the Jobs a JobFlow makes
// in dependency order, its status and phase, jobRetainPolicy delete, a failed Job, a missing
// JobTemplate; and a whole flow run with the job controller making and finishing the pods.
#include "controllers/jobflow_controller.h"

#include "common/time.h"
#include "controllers/job_controller.h"
#include "controllers/jobtemplate_controller.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

using nlohmann::json;
using testing::Task;

class JobFlowTest : public testing::ControllerTest {
 protected:
  // The job controller runs only where a test asks for it: without it, the tests set the Jobs'
  // phases themselves.
  void Make(bool with_job_controller = false) {
    flows_ = std::make_unique<JobFlowController>(Options());
    templates_ = std::make_unique<JobTemplateController>(Options());
    if (with_job_controller) jobs_ = std::make_unique<JobController>(Options());
    sync_ = [this] {
      std::vector<Controller*> all = {flows_.get(), templates_.get()};
      if (jobs_) all.push_back(jobs_.get());
      return SyncUntilIdle(all);
    };
  }
  void SetUp() override { Make(); }

  void Template(const std::string& name, int replicas = 1) {
    MustCreate("jobtemplates", "default",
               {{"apiVersion", "flow.volcano.sh/v1alpha1"},
                {"kind", "JobTemplate"},
                {"metadata", {{"name", name}, {"namespace", "default"}}},
                {"spec", {{"minAvailable", replicas}, {"tasks", {Task("w", replicas)}}}}});
  }
  json Flow(const std::string& name, json flows, const std::string& retain = "") {
    json spec = {{"flows", std::move(flows)}};
    if (!retain.empty()) spec["jobRetainPolicy"] = retain;
    return MustCreate("jobflows", "default",
                      {{"apiVersion", "flow.volcano.sh/v1alpha1"},
                       {"kind", "JobFlow"},
                       {"metadata", {{"name", name}, {"namespace", "default"}}},
                       {"spec", spec}});
  }
  std::optional<json> VcJob(const std::string& name) {
    return Get("jobs.batch.volcano.sh", "default", name);
  }
  // The job controller's part: the Job's phase.
  void SetJobPhase(const std::string& job, const std::string& phase) {
    json state = {{"phase", phase}, {"lastTransitionTime", FormatRfc3339(clock_.NowMs())}};
    auto r = rest().MergePatch(client::Path("jobs.batch.volcano.sh", "default", job),
                               {{"status", {{"state", state}}}}, "status");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json FlowStatus(const std::string& name) {
    auto f = Get("jobflows", "default", name);
    return f ? f->value("status", json::object()) : json();
  }
  std::string FlowPhase(const std::string& name) {
    return FlowStatus(name).value("/state/phase"_json_pointer, std::string("<none>"));
  }
  // The Events about JobFlow `name`: reason -> messages.
  std::map<std::string, std::vector<std::string>> FlowEvents(const std::string& name) {
    flows_->events().Flush();
    std::map<std::string, std::vector<std::string>> out;
    for (const json& e : List("events", "default")) {
      if (e["involvedObject"].value("kind", "") == "JobFlow" &&
          e["involvedObject"].value("name", "") == name) {
        out[e.value("reason", "")].push_back(e.value("message", ""));
      }
    }
    return out;
  }
  void TearDown() override {
    for (Controller* c :
         {static_cast<Controller*>(flows_.get()), static_cast<Controller*>(templates_.get()),
          static_cast<Controller*>(jobs_.get())}) {
      if (c) c->Stop();
    }
  }

  std::unique_ptr<JobFlowController> flows_;
  std::unique_ptr<JobTemplateController> templates_;
  std::unique_ptr<JobController> jobs_;
};

const json kChain = {{{"name", "a"}}, {{"name", "b"}, {"dependsOn", {{"targets", {"a"}}}}}};

TEST_F(JobFlowTest, MakesEachJobOnceItsTargetsCompletedAndSucceeds) {
  Template("a");
  Template("b", 2);
  json flow = Flow("f", kChain);
  Sync();
  auto a = VcJob("f-a");
  ASSERT_TRUE(a);
  EXPECT_FALSE(VcJob("f-b"));
  // As Volcano makes it: the template's spec, its marks, the JobFlow as controller.
  EXPECT_EQ((*a)["metadata"]["labels"]["volcano.sh/createdByJobFlow"], "default.f");
  EXPECT_EQ((*a)["metadata"]["labels"]["volcano.sh/createdByJobTemplate"], "default.a");
  EXPECT_EQ((*a)["metadata"]["annotations"]["volcano.sh/createdByJobFlow"], "default.f");
  const json& owner = (*a)["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "JobFlow");
  EXPECT_EQ(owner["apiVersion"], "flow.volcano.sh/v1alpha1");
  EXPECT_EQ(owner["uid"], flow["metadata"]["uid"]);
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ((*a)["spec"]["tasks"][0]["name"], "w");
  EXPECT_EQ(FlowEvents("f")["Created"],
            std::vector<std::string>{"Created Job f-a from JobTemplate a"});
  // A Job the job controller has not seen yet has no phase: Volcano lists it as unknown.
  EXPECT_EQ(FlowStatus("f")["unKnowJobs"], json({"f-a"}));
  EXPECT_EQ(FlowPhase("f"), "Pending");

  SetJobPhase("f-a", "Running");
  Sync();
  EXPECT_EQ(FlowStatus("f")["runningJobs"], json({"f-a"}));
  EXPECT_EQ(FlowPhase("f"), "Running");
  EXPECT_FALSE(VcJob("f-b"));

  clock_.Advance(60'000);
  SetJobPhase("f-a", "Completed");
  Sync();
  auto b = VcJob("f-b");
  ASSERT_TRUE(b);
  EXPECT_EQ((*b)["spec"]["minAvailable"], 2);
  EXPECT_EQ(FlowStatus("f")["completedJobs"], json({"f-a"}));
  EXPECT_EQ(FlowPhase("f"), "Running");

  SetJobPhase("f-b", "Running");
  Sync();
  SetJobPhase("f-b", "Completed");
  Sync();
  json status = FlowStatus("f");
  EXPECT_EQ(status["state"]["phase"], "Succeed");
  EXPECT_EQ(status["completedJobs"], json({"f-a", "f-b"}));
  EXPECT_FALSE(status.contains("runningJobs"));
  EXPECT_EQ(status["conditions"]["f-b"]["phase"], "Completed");
  ASSERT_EQ(status["jobStatusList"].size(), 2u);
  const json& entry = status["jobStatusList"][0];
  EXPECT_EQ(entry["name"], "f-a");
  EXPECT_EQ(entry["state"], "Completed");
  EXPECT_EQ(entry["endTimestamp"], FormatRfc3339(clock_.NowMs()));
  ASSERT_EQ(entry["runningHistories"].size(), 2u);
  EXPECT_EQ(entry["runningHistories"][0]["state"], "Running");
  EXPECT_EQ(entry["runningHistories"][0]["endTimestamp"], FormatRfc3339(clock_.NowMs()));
  EXPECT_EQ(entry["runningHistories"][1]["state"], "Completed");
  // Retained (the default), and each template lists the Job made from it.
  EXPECT_TRUE(VcJob("f-a") && VcJob("f-b"));
  EXPECT_EQ((*Get("jobtemplates", "default", "b"))["status"]["jobDependsOnList"], json({"f-b"}));
  EXPECT_EQ(FlowEvents("f")["Created"].size(), 2u);
}

TEST_F(JobFlowTest, DeletePolicyDeletesTheJobsOnceTheFlowSucceeds) {
  Template("a");
  Template("b");
  Flow("f", kChain, "delete");
  Sync();
  SetJobPhase("f-a", "Completed");
  Sync();
  ASSERT_TRUE(VcJob("f-a") && VcJob("f-b"));
  SetJobPhase("f-b", "Completed");
  Sync();
  EXPECT_EQ(FlowPhase("f"), "Succeed");
  EXPECT_FALSE(VcJob("f-a"));
  EXPECT_FALSE(VcJob("f-b"));
  // Nothing is made again, and the status keeps what the flow did.
  Sync();
  EXPECT_FALSE(VcJob("f-a"));
  EXPECT_EQ(FlowStatus("f")["completedJobs"], json({"f-a", "f-b"}));
}

TEST_F(JobFlowTest, AFailedJobFailsTheFlowAndItsDependentsAreNeverMade) {
  Template("a");
  Template("b");
  Template("c");
  Flow("f",
       {{{"name", "a"}}, {{"name", "b"}, {"dependsOn", {{"targets", {"a"}}}}}, {{"name", "c"}}});
  Sync();
  ASSERT_TRUE(VcJob("f-a") && VcJob("f-c"));
  SetJobPhase("f-c", "Running");
  SetJobPhase("f-a", "Failed");
  Sync();
  json status = FlowStatus("f");
  EXPECT_EQ(status["state"]["phase"], "Failed");
  EXPECT_EQ(status["failedJobs"], json({"f-a"}));
  EXPECT_EQ(status["runningJobs"], json({"f-c"}));
  EXPECT_FALSE(VcJob("f-b"));
  // A Failed JobFlow is left as it is (Volcano's failed state does nothing).
  SetJobPhase("f-c", "Completed");
  Sync();
  EXPECT_EQ(FlowStatus("f"), status);
}

TEST_F(JobFlowTest, AMissingTemplateIsAWarningUntilItExists) {
  Template("a");
  Flow("f", {{{"name", "a"}}, {{"name", "x"}}});
  Sync();
  EXPECT_TRUE(VcJob("f-a"));
  EXPECT_FALSE(VcJob("f-x"));
  EXPECT_EQ(FlowEvents("f")["FailedCreate"],
            std::vector<std::string>{"JobTemplate x not found: Job f-x is made once it exists"});
  EXPECT_EQ(FlowPhase("f"), "Pending");
  Template("x");
  Sync();
  EXPECT_TRUE(VcJob("f-x"));
}

TEST_F(JobFlowTest, AJobTheApiRefusesIsAWarning) {
  MustCreate("jobtemplates", "default",
             {{"metadata", {{"name", "a"}}},
              {"spec", {{"queue", "no-such-queue"}, {"tasks", {Task("w", 1)}}}}});
  Flow("f", {{{"name", "a"}}});
  Sync();
  EXPECT_FALSE(VcJob("f-a"));
  auto warnings = FlowEvents("f")["FailedCreate"];
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("Error creating Job f-a from JobTemplate a: "), std::string::npos);
  EXPECT_NE(warnings[0].find("no-such-queue"), std::string::npos) << warnings[0];
}

TEST_F(JobFlowTest, RunsWithTheJobControllerMakingAndFinishingThePods) {
  Make(/*with_job_controller=*/true);
  Template("a");
  Template("b");
  Flow("f", kChain, "delete");
  Sync();
  ASSERT_EQ(JobPods("f-a").size(), 1u);
  EXPECT_TRUE(JobPods("f-b").empty());
  SetAll("f-a", "Running");
  Sync();
  EXPECT_EQ(FlowPhase("f"), "Running");
  SetAll("f-a", "Succeeded");
  Sync();
  EXPECT_EQ((*VcJob("f-a"))["status"]["state"]["phase"], "Completed");
  ASSERT_EQ(JobPods("f-b").size(), 1u);
  SetAll("f-b", "Succeeded");
  SyncFinishingDeletes();
  EXPECT_EQ(FlowPhase("f"), "Succeed");
  EXPECT_FALSE(VcJob("f-a"));
  EXPECT_FALSE(VcJob("f-b"));
}

}  // namespace
}  // namespace etna::controllers
