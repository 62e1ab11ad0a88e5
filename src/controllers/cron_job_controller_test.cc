// The CronJob controllers (batch/v1 and Volcano's), driven synchronously over the in-process API
// with a fake clock: a Job per scheduled time, named and annotated as Kubernetes does, the
// concurrency policies, history limits, suspension, and Volcano Jobs from a Volcano CronJob.
#include "controllers/cron_job_controller.h"

#include <gtest/gtest.h>

#include "api/types/batch_job.h"
#include "common/time.h"
#include "controllers/test_util.h"

namespace etna::controllers {
namespace {

namespace types = etna::api::types;
using nlohmann::json;

constexpr TimeMs kFiveMinutes = 5 * 60'000;

json PodTemplate() {
  return {{"spec",
           {{"restartPolicy", "Never"}, {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
}

json CronJob(const std::string& name, json spec) {
  json cron = {{"apiVersion", "batch/v1"},
               {"kind", "CronJob"},
               {"metadata", {{"name", name}, {"namespace", "default"}}},
               {"spec",
                {{"schedule", "*/5 * * * *"},
                 {"timeZone", "UTC"},
                 {"jobTemplate", {{"spec", {{"template", PodTemplate()}}}}}}}};
  cron["spec"].update(spec);
  return cron;
}

class CronJobTest : public testing::ControllerTest {
 protected:
  void SetUp() override {
    batch_ = std::make_unique<CronJobController>(Options(), BatchCronJobs());
    volcano_ = std::make_unique<CronJobController>(Options(), VolcanoCronJobs());
    sync_ = [this] { return SyncUntilIdle({batch_.get(), volcano_.get()}); };
  }
  // The next five-minute mark plus a second.
  void NextRun() { clock_.Set((clock_.NowMs() / kFiveMinutes + 1) * kFiveMinutes + 1'000); }
  std::vector<json> Jobs(const std::string& resource = "jobs") { return List(resource, "default"); }
  void Finish(const std::string& job, const std::string& type) {
    json status = {{"conditions",
                    {{{"type", type},
                      {"status", "True"},
                      {"lastTransitionTime", FormatRfc3339(clock_.NowMs())}}}}};
    auto r =
        rest().MergePatch(client::Path("jobs", "default", job), {{"status", status}}, "status");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  json Status(const std::string& resource, const std::string& name) {
    return (*Get(resource, "default", name))["status"];
  }
  bool HasEvent(const std::string& reason) {
    batch_->events().Flush();
    volcano_->events().Flush();
    for (const json& e : List("events", "default")) {
      if (e.value("reason", "") == reason) return true;
    }
    return false;
  }

  std::unique_ptr<CronJobController> batch_, volcano_;
};

TEST_F(CronJobTest, MakesAJobAtEachScheduledTimeNamedByItsMinute) {
  MustCreate("cronjobs", "default", CronJob("nightly", json::object()));
  Sync();
  EXPECT_TRUE(Jobs().empty());  // created after the last mark: nothing due yet
  NextRun();
  Sync();
  auto jobs = Jobs();
  ASSERT_EQ(jobs.size(), 1u);
  const TimeMs scheduled = clock_.NowMs() - 1'000;
  EXPECT_EQ(jobs[0]["metadata"]["name"], "nightly-" + std::to_string(scheduled / 60'000));
  EXPECT_EQ(jobs[0]["metadata"]["annotations"][types::kCronJobScheduledTimestampAnnotation],
            FormatRfc3339(scheduled));
  EXPECT_EQ(jobs[0]["metadata"]["ownerReferences"][0]["kind"], "CronJob");
  EXPECT_EQ(jobs[0]["spec"]["template"]["spec"]["containers"][0]["image"], "busybox");
  json status = Status("cronjobs", "nightly");
  EXPECT_EQ(status["lastScheduleTime"], FormatRfc3339(scheduled));
  ASSERT_EQ(status["active"].size(), 1u);
  EXPECT_EQ(status["active"][0]["name"], jobs[0]["metadata"]["name"]);
  EXPECT_TRUE(HasEvent("SuccessfulCreate"));

  // Allow: the next run beside the first; after a long downtime only the latest missed one.
  clock_.Advance(3 * kFiveMinutes);
  Sync();
  EXPECT_EQ(Jobs().size(), 2u);
}

TEST_F(CronJobTest, ForbidWaitsForTheActiveJobThenRunsTheDueOne) {
  MustCreate("cronjobs", "default", CronJob("f", {{"concurrencyPolicy", "Forbid"}}));
  NextRun();
  Sync();
  ASSERT_EQ(Jobs().size(), 1u);
  std::string first = Jobs()[0]["metadata"]["name"];
  NextRun();
  Sync();
  EXPECT_EQ(Jobs().size(), 1u);
  EXPECT_TRUE(HasEvent("JobAlreadyActive"));
  Finish(first, "Complete");
  Sync();
  ASSERT_EQ(Jobs().size(), 2u);
  EXPECT_TRUE(HasEvent("SawCompletedJob"));
  EXPECT_EQ(Status("cronjobs", "f")["active"].size(), 1u);
  EXPECT_TRUE(Status("cronjobs", "f").contains("lastSuccessfulTime"));
}

TEST_F(CronJobTest, ReplaceDeletesTheActiveJob) {
  MustCreate("cronjobs", "default", CronJob("r", {{"concurrencyPolicy", "Replace"}}));
  NextRun();
  Sync();
  std::string first = Jobs()[0]["metadata"]["name"];
  NextRun();
  Sync();
  auto jobs = Jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_NE(jobs[0]["metadata"]["name"], first);
}

TEST_F(CronJobTest, HistoryLimitsKeepTheNewestFinishedJobs) {
  MustCreate("cronjobs", "default",
             CronJob("h", {{"successfulJobsHistoryLimit", 1}, {"failedJobsHistoryLimit", 0}}));
  std::vector<std::string> made;
  for (int i = 0; i < 3; ++i) {
    NextRun();
    Sync();
    for (const json& j : Jobs()) {
      std::string name = j["metadata"]["name"];
      if (std::find(made.begin(), made.end(), name) == made.end()) made.push_back(name);
    }
    Finish(made.back(), i == 2 ? "Failed" : "Complete");
    Sync();
  }
  ASSERT_EQ(made.size(), 3u);
  std::set<std::string> left;
  for (const json& j : Jobs()) left.insert(j["metadata"]["name"]);
  EXPECT_EQ(left, std::set<std::string>({made[1]}));  // the newest success; no failures kept
}

TEST_F(CronJobTest, SuspendedMakesNothing) {
  MustCreate("cronjobs", "default", CronJob("s", {{"suspend", true}}));
  NextRun();
  Sync();
  EXPECT_TRUE(Jobs().empty());
}

TEST_F(CronJobTest, VolcanoCronJobMakesVolcanoJobs) {
  json cron = {{"apiVersion", "batch.volcano.sh/v1alpha1"},
               {"kind", "CronJob"},
               {"metadata", {{"name", "vc"}, {"namespace", "default"}}},
               {"spec",
                {{"schedule", "*/5 * * * *"},
                 {"timeZone", "UTC"},
                 {"jobTemplate", {{"spec", testing::Job("x", {testing::Task("w", 1)})["spec"]}}}}}};
  MustCreate("cronvcjob", "default", cron);
  NextRun();
  Sync();
  auto jobs = Jobs("vcjob");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0]["spec"]["tasks"][0]["name"], "w");
  EXPECT_EQ(jobs[0]["spec"]["schedulerName"], "volcano");  // the template admitted as a Job
  EXPECT_TRUE(Jobs().empty());                             // no batch/v1 Job
  std::string name = jobs[0]["metadata"]["name"];
  auto r = rest().MergePatch(
      client::Path("vcjob", "default", name),
      {{"status",
        {{"state",
          {{"phase", "Completed"}, {"lastTransitionTime", FormatRfc3339(clock_.NowMs())}}}}}},
      "status");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Sync();
  EXPECT_TRUE(Status("cronvcjob", "vc").contains("lastSuccessfulTime"));
  EXPECT_FALSE(Status("cronvcjob", "vc").contains("active"));
}

}  // namespace
}  // namespace etna::controllers
