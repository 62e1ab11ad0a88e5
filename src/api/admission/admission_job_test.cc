// Volcano Job admission: defaults, one table of rejections each naming its field, updates, and
// QueueBinding routing.
#include <gtest/gtest.h>

#include <functional>

#include "api/admission/admission_test_util.h"

namespace etna::api::admission {
namespace {

using testing::Describe;
using testing::FakeLookup;
using testing::Json;

const resources::ResourceInfo& JobInfo() {
  static const auto info = testing::InfoOf("batch.volcano.sh/v1alpha1", "Job");
  return info;
}

using testing::Task;

Json BaseJob() {
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"metadata", {{"name", "train"}, {"namespace", "default"}}},
          {"spec", {{"tasks", {Task("master", 1), Task("worker", 3)}}}}};
}

TEST(JobAdmission, DefaultsLikeVolcanosMutatingWebhook) {
  FakeLookup lookup;
  Json job = BaseJob();
  job["spec"]["tasks"][1].erase("name");
  job["spec"]["plugins"] = {{"pytorch", {"--master=master", "--worker=default1"}}};
  auto errs = Admit(JobInfo(), Operation::kCreate, job, nullptr, lookup);
  ASSERT_TRUE(errs.empty()) << Describe(errs);
  const Json& s = job["spec"];
  EXPECT_EQ(s["queue"], "default");
  EXPECT_EQ(s["schedulerName"], "volcano");
  EXPECT_EQ(s["maxRetry"], 3);
  EXPECT_EQ(s["minAvailable"], 4);
  EXPECT_EQ(s["tasks"][1]["name"], "default1");
  EXPECT_EQ(s["tasks"][1]["minAvailable"], 3);
  EXPECT_EQ(s["tasks"][0]["maxRetry"], 3);
  EXPECT_TRUE(s["plugins"].contains("svc"));
  EXPECT_EQ(s["tasks"][0]["template"]["spec"]["containers"][0]["imagePullPolicy"], "Always");
}

// A queue with spec.allowedNamespaces (Volcano's field) takes the work of those namespaces only;
// "*" or no list takes every namespace's.
TEST(JobAdmission, AQueueTakesJobsOnlyFromTheNamespacesItAllows) {
  FakeLookup lookup;
  lookup.AddQueue("team-a-queue", "Open");
  lookup.QueueObject("team-a-queue")["spec"]["allowedNamespaces"] = {"team-a"};
  lookup.AddQueue("shared", "Open");
  lookup.QueueObject("shared")["spec"]["allowedNamespaces"] = {"*"};
  auto submit = [&](const std::string& ns, const std::string& queue) {
    Json job = BaseJob();
    job["metadata"]["namespace"] = ns;
    job["spec"]["queue"] = queue;
    return Admit(JobInfo(), Operation::kCreate, job, nullptr, lookup);
  };
  EXPECT_TRUE(submit("team-a", "team-a-queue").empty());
  EXPECT_TRUE(submit("team-b", "shared").empty());
  EXPECT_TRUE(submit("team-b", "default").empty());
  auto refused = submit("team-b", "team-a-queue");
  ASSERT_EQ(refused.size(), 1u) << Describe(refused);
  EXPECT_EQ(refused[0].field, "spec.queue");
  EXPECT_NE(refused[0].message.find("queue `team-a-queue` does not admit a job of namespace "
                                    "`team-b`"),
            std::string::npos)
      << refused[0].message;
}

TEST(JobAdmission, MinAvailableFromTaskMinAvailable) {
  FakeLookup lookup;
  Json job = BaseJob();
  job["spec"]["tasks"][1]["minAvailable"] = 1;
  ASSERT_TRUE(Admit(JobInfo(), Operation::kCreate, job, nullptr, lookup).empty());
  EXPECT_EQ(job["spec"]["minAvailable"], 2);
}

// Policy timeouts take Go's whole duration grammar (the controller rounds a sub-millisecond one up
// to 1 ms); a negative one is refused naming the field.
TEST(JobAdmission, PolicyTimeoutsTakeEveryGoUnit) {
  FakeLookup lookup;
  for (const char* timeout : {"500us", "1.5h", "2h45m", "10ns", "0"}) {
    Json job = BaseJob();
    job["spec"]["policies"] = {
        {{"event", "PodPending"}, {"action", "AbortJob"}, {"timeout", timeout}}};
    EXPECT_TRUE(Admit(JobInfo(), Operation::kCreate, job, nullptr, lookup).empty()) << timeout;
  }
  Json job = BaseJob();
  job["spec"]["policies"] = {{{"event", "PodPending"}, {"action", "AbortJob"}, {"timeout", "-1s"}}};
  auto errs = Admit(JobInfo(), Operation::kCreate, job, nullptr, lookup);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].field, "spec.policies[0].timeout");
}

struct RejectCase {
  const char* name;
  std::function<void(Json&)> mutate;
  std::string field;
  const char* reason;
  const char* message;  // substring
};

TEST(JobAdmission, RejectionsNameTheField) {
  const std::string c0 = "spec.tasks[0].template.spec.containers[0]";
  std::vector<RejectCase> cases = {
      {"minAvailable above replicas", [](Json& j) { j["spec"]["minAvailable"] = 5; },
       "spec.minAvailable", "FieldValueInvalid",
       "Invalid value: 5: must be less than or equal to the total replicas 4"},
      {"negative minAvailable", [](Json& j) { j["spec"]["minAvailable"] = -1; },
       "spec.minAvailable", "FieldValueInvalid",
       "Invalid value: -1: must be greater than or equal to 0"},
      {"no tasks", [](Json& j) { j["spec"]["tasks"] = Json::array(); }, "spec.tasks",
       "FieldValueRequired", "No task specified"},
      {"duplicate task", [](Json& j) { j["spec"]["tasks"][1]["name"] = "master"; },
       "spec.tasks[1].name", "FieldValueDuplicate", "Duplicate value: \"master\""},
      {"task name not a DNS label", [](Json& j) { j["spec"]["tasks"][0]["name"] = "Master_1"; },
       "spec.tasks[0].name", "FieldValueInvalid", "RFC 1123 label"},
      {"negative replicas", [](Json& j) { j["spec"]["tasks"][0]["replicas"] = -1; },
       "spec.tasks[0].replicas", "FieldValueInvalid", "greater than or equal to 0"},
      {"task minAvailable above replicas",
       [](Json& j) { j["spec"]["tasks"][1]["minAvailable"] = 4; }, "spec.tasks[1].minAvailable",
       "FieldValueInvalid", "must be less than or equal to replicas (3)"},
      {"negative maxRetry", [](Json& j) { j["spec"]["maxRetry"] = -1; }, "spec.maxRetry",
       "FieldValueInvalid", "-1"},
      {"negative ttl", [](Json& j) { j["spec"]["ttlSecondsAfterFinished"] = -5; },
       "spec.ttlSecondsAfterFinished", "FieldValueInvalid", "-5"},
      {"minSuccess zero", [](Json& j) { j["spec"]["minSuccess"] = 0; }, "spec.minSuccess",
       "FieldValueInvalid", "greater than or equal to 1"},
      {"sla waiting time not a duration",
       [](Json& j) { j["metadata"]["annotations"]["volcano.sh/sla-waiting-time"] = "later"; },
       "metadata.annotations[volcano.sh/sla-waiting-time]", "FieldValueInvalid", "duration"},
      {"event and exitCode",
       [](Json& j) {
         j["spec"]["policies"] = {
             {{"event", "PodFailed"}, {"exitCode", 3}, {"action", "AbortJob"}}};
       },
       "spec.policies[0].exitCode", "FieldValueForbidden", "simultaneously"},
      {"exitCode zero",
       [](Json& j) {
         j["spec"]["policies"] = {{{"exitCode", 0}, {"action", "AbortJob"}}};
       },
       "spec.policies[0].exitCode", "FieldValueInvalid", "0 is not a valid error code"},
      {"duplicate event",
       [](Json& j) {
         j["spec"]["policies"] = {
             {{"event", "PodFailed"}, {"action", "AbortJob"}},
             {{"events", {"PodEvicted", "PodFailed"}}, {"action", "RestartJob"}}};
       },
       "spec.policies[1].events[1]", "FieldValueDuplicate", "\"PodFailed\""},
      {"internal event",
       [](Json& j) {
         j["spec"]["policies"] = {{{"event", "OutOfSync"}, {"action", "AbortJob"}}};
       },
       "spec.policies[0].event", "FieldValueNotSupported", "Unsupported value: \"OutOfSync\""},
      {"internal action",
       [](Json& j) {
         j["spec"]["policies"] = {{{"event", "PodFailed"}, {"action", "SyncJob"}}};
       },
       "spec.policies[0].action", "FieldValueNotSupported", "\"SyncJob\""},
      {"star with others",
       [](Json& j) {
         j["spec"]["policies"] = {{{"event", "*"}, {"action", "AbortJob"}},
                                  {{"event", "PodFailed"}, {"action", "RestartJob"}}};
       },
       "spec.policies", "FieldValueInvalid", "no other policy"},
      {"task policy bad timeout",
       [](Json& j) {
         j["spec"]["tasks"][0]["policies"] = {
             {{"event", "PodPending"}, {"action", "RestartPod"}, {"timeout", "ten minutes"}}};
       },
       "spec.tasks[0].policies[0].timeout", "FieldValueInvalid", "duration"},
      {"unknown plugin",
       [](Json& j) {
         j["spec"]["plugins"] = {{"horovod", Json::array()}};
       },
       "spec.plugins[horovod]", "FieldValueNotSupported", "\"horovod\""},
      {"queue not found", [](Json& j) { j["spec"]["queue"] = "nope"; }, "spec.queue",
       "FieldValueInvalid", "Invalid value: \"nope\": unable to find job queue"},
      {"queue closed", [](Json& j) { j["spec"]["queue"] = "closed"; }, "spec.queue",
       "FieldValueForbidden",
       "Forbidden: can only submit job to queue with state `Open`, queue `closed` status is "
       "`Closed`"},
      {"queue closing", [](Json& j) { j["spec"]["queue"] = "closing"; }, "spec.queue",
       "FieldValueForbidden",
       "Forbidden: can only submit job to queue with state `Open`, queue `closing` status is "
       "`Closing`"},
      {"dependsOn unknown task",
       [](Json& j) {
         j["spec"]["tasks"][1]["dependsOn"] = {{"name", {"ps"}}};
       },
       "spec.tasks[1].dependsOn.name[0]", "FieldValueNotFound", "\"ps\""},
      {"dependsOn cycle",
       [](Json& j) {
         j["spec"]["tasks"][0]["dependsOn"] = {{"name", {"worker"}}};
         j["spec"]["tasks"][1]["dependsOn"] = {{"name", {"master"}}};
       },
       "spec.tasks", "FieldValueInvalid", "directed acyclic graph"},
      {"request above limit",
       [&](Json& j) {
         j["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]
          ["cpu"] = "3";
       },
       c0 + ".resources.requests[cpu]", "FieldValueInvalid",
       "must be less than or equal to cpu limit of 2"},
      {"fractional gpu",
       [](Json& j) {
         auto& r = j["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"];
         r["requests"]["nvidia.com/gpu"] = "0.5";
         r["limits"]["nvidia.com/gpu"] = "0.5";
       },
       c0 + ".resources.requests[nvidia.com/gpu]", "FieldValueInvalid", "must be an integer"},
      {"negative memory",
       [](Json& j) {
         j["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"]["limits"]
          ["memory"] = "-1Gi";
       },
       c0 + ".resources.limits[memory]", "FieldValueInvalid", "must be greater than or equal to 0"},
      {"bad quantity",
       [](Json& j) {
         j["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] =
             "two";
       },
       c0 + ".resources.limits[cpu]", "FieldValueInvalid", "quantities must match"},
      {"missing image",
       [](Json& j) { j["spec"]["tasks"][0]["template"]["spec"]["containers"][0].erase("image"); },
       c0 + ".image", "FieldValueRequired", "Required value"},
      {"minMember alias disagrees",
       [](Json& j) {
         j["spec"]["minMember"] = 2;
         j["spec"]["minAvailable"] = 3;
       },
       "spec.minMember", "FieldValueInvalid", "alias of spec.minAvailable"},
      {"bad priority type", [](Json& j) { j["spec"]["priority"] = "high"; }, "spec.priority",
       "FieldValueInvalid", "must be an integer"},
      {"volume without claim",
       [](Json& j) {
         j["spec"]["volumes"] = {{{"mountPath", "/d"}}};
       },
       "spec.volumes[0]", "FieldValueRequired", "volumeClaim"},
      {"job name too long for pods", [](Json& j) { j["metadata"]["name"] = std::string(64, 'a'); },
       "metadata.name", "FieldValueInvalid", "63"},
  };
  for (const RejectCase& c : cases) {
    FakeLookup lookup;
    Json job = BaseJob();
    c.mutate(job);
    auto errs = Admit(JobInfo(), Operation::kCreate, job, nullptr, lookup);
    const FieldError* e = testing::FindError(errs, c.field);
    ASSERT_NE(e, nullptr) << c.name << ": no error at " << c.field << Describe(errs);
    EXPECT_EQ(e->reason, c.reason) << c.name;
    EXPECT_NE(e->message.find(c.message), std::string::npos)
        << c.name << ": " << e->message << " lacks " << c.message;
  }
}

TEST(JobAdmission, UpdateMayChangeOnlyScaleFields) {
  FakeLookup lookup;
  Json old = BaseJob();
  ASSERT_TRUE(Admit(JobInfo(), Operation::kCreate, old, nullptr, lookup).empty());

  Json scaled = old;
  scaled["spec"]["tasks"][1]["replicas"] = 5;
  scaled["spec"]["tasks"][1]["minAvailable"] = 5;
  scaled["spec"]["minAvailable"] = 6;
  EXPECT_TRUE(Admit(JobInfo(), Operation::kUpdate, scaled, &old, lookup).empty());

  Json image = old;
  image["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["image"] = "other";
  auto errs = Admit(JobInfo(), Operation::kUpdate, image, &old, lookup);
  ASSERT_EQ(errs.size(), 1u) << Describe(errs);
  EXPECT_EQ(errs[0].field, "spec");
  EXPECT_EQ(errs[0].reason, "FieldValueForbidden");

  Json fewer = old;
  fewer["spec"]["tasks"].erase(1);
  errs = Admit(JobInfo(), Operation::kUpdate, fewer, &old, lookup);
  ASSERT_NE(testing::FindError(errs, "spec.tasks"), nullptr) << Describe(errs);

  Json too_many = old;
  too_many["spec"]["minAvailable"] = 9;
  errs = Admit(JobInfo(), Operation::kUpdate, too_many, &old, lookup);
  ASSERT_NE(testing::FindError(errs, "spec.minAvailable"), nullptr) << Describe(errs);

  // A PUT of the user's manifest (no defaults) against the defaulted old object is unchanged.
  Json put = BaseJob();
  EXPECT_TRUE(Admit(JobInfo(), Operation::kUpdate, put, &old, lookup).empty());
}

TEST(JobAdmission, QueueBindingRoutesAndGuards) {
  FakeLookup lookup;
  lookup.AddQueue("production-training", "Open");
  lookup.AddBinding({{"metadata", {{"name", "team-algo"}}},
                     {"spec",
                      {{"queue", "production-training"},
                       {"selector", {{"matchLabels", {{"team", "algorithm"}}}}}}}});
  Json job = BaseJob();
  job["metadata"]["labels"] = {{"team", "algorithm"}};
  ASSERT_TRUE(Admit(JobInfo(), Operation::kCreate, job, nullptr, lookup).empty());
  EXPECT_EQ(job["spec"]["queue"], "production-training");

  Json other = BaseJob();
  other["metadata"]["labels"] = {{"team", "infra"}};
  other["spec"]["queue"] = "production-training";
  auto errs = Admit(JobInfo(), Operation::kCreate, other, nullptr, lookup);
  const FieldError* e = testing::FindError(errs, "spec.queue");
  ASSERT_NE(e, nullptr) << Describe(errs);
  EXPECT_EQ(e->reason, "FieldValueForbidden");

  Json unlabeled = BaseJob();
  ASSERT_TRUE(Admit(JobInfo(), Operation::kCreate, unlabeled, nullptr, lookup).empty());
  EXPECT_EQ(unlabeled["spec"]["queue"], "default");
}

TEST(JobAdmission, OnlyLeafQueuesTakeJobs) {
  FakeLookup lookup;
  lookup.AddQueue("team", "Open");
  lookup.AddQueue("team-a", "Open", "team");
  Json job = BaseJob();
  job["spec"]["queue"] = "team";
  auto errs = Admit(JobInfo(), Operation::kCreate, job, nullptr, lookup);
  ASSERT_NE(testing::FindError(errs, "spec.queue"), nullptr) << Describe(errs);
  job = BaseJob();
  job["spec"]["queue"] = "team-a";
  EXPECT_TRUE(Admit(JobInfo(), Operation::kCreate, job, nullptr, lookup).empty());
}

}  // namespace
}  // namespace etna::api::admission
