// Admission of batch/v1 Job and CronJob and of Volcano's CronJob: Kubernetes' defaults (the
// generated selector and labels, parallelism and completions), its refusals by field, and what
// etna refuses because it does not run it.
#include <gtest/gtest.h>

#include "api/admission/admission_test_util.h"

namespace etna::api::admission {
namespace {

using testing::Describe;
using testing::FakeLookup;
using testing::Json;

std::vector<FieldError> AdmitYaml(const std::string& yaml, Json* out = nullptr) {
  FakeLookup lookup;
  lookup.AddQueue("team", "Open");
  Json obj = testing::LoadYaml(yaml).at(0);
  obj["metadata"]["uid"] = "u-1";
  auto info = testing::InfoOf(obj.value("apiVersion", ""), obj.value("kind", ""));
  auto errs = Admit(info, Operation::kCreate, obj, nullptr, lookup);
  if (out) *out = obj;
  return errs;
}

const std::string kJob =
    "{apiVersion: batch/v1, kind: Job, metadata: {name: pi, namespace: a}, spec: {template: "
    "{spec: {restartPolicy: Never, containers: [{name: c, image: perl}]}}";

TEST(BatchAdmission, JobDefaultsSelectorLabelsAndCounts) {
  Json job;
  auto errs = AdmitYaml(kJob + "}}", &job);
  ASSERT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(job["spec"]["selector"],
            Json({{"matchLabels", {{"batch.kubernetes.io/controller-uid", "u-1"}}}}));
  const Json& labels = job["spec"]["template"]["metadata"]["labels"];
  EXPECT_EQ(labels["controller-uid"], "u-1");
  EXPECT_EQ(labels["batch.kubernetes.io/job-name"], "pi");
  EXPECT_EQ(labels["job-name"], "pi");
  EXPECT_EQ(job["spec"]["completions"], 1);
  EXPECT_EQ(job["spec"]["parallelism"], 1);
  EXPECT_EQ(job["spec"]["backoffLimit"], 6);
  EXPECT_EQ(job["spec"]["completionMode"], "NonIndexed");
  // Parallelism alone: a work queue, completions left unset.
  ASSERT_TRUE(AdmitYaml(kJob + ", parallelism: 3}}", &job).empty());
  EXPECT_FALSE(job["spec"].contains("completions"));
}

TEST(BatchAdmission, JobRefusalsNameTheField) {
  struct Case {
    std::string extra, field, message;
  };
  const std::vector<Case> cases = {
      {", completionMode: Indexed, parallelism: 2", "spec.completions",
       "when completion mode is Indexed"},
      {", completions: -1", "spec.completions", "must be greater than or equal to 0"},
      {", activeDeadlineSeconds: 0", "spec.activeDeadlineSeconds", "must be greater than 0"},
      {", backoffLimitPerIndex: 1", "spec.backoffLimitPerIndex", "per-index back-off"},
      {", successPolicy: {rules: []}", "spec.successPolicy", "not supported"},
      {", manualSelector: true", "spec.manualSelector", "not supported"},
      {", selector: {matchLabels: {a: b}}", "spec.selector", "generates each Job's selector"},
      {", podReplacementPolicy: Failed", "spec.podReplacementPolicy", "TerminatingOrFailed"},
      {", managedBy: kueue.x-k8s.io/multikueue", "spec.managedBy", "Unsupported value"},
      {", podFailurePolicy: {rules: [{action: FailIndex, onExitCodes: {operator: In, values: "
       "[1]}}]}",
       "spec.podFailurePolicy.rules[0].action", "backoffLimitPerIndex"},
      {", podFailurePolicy: {rules: [{action: FailJob, onExitCodes: {operator: In, values: [0]}}]}",
       "spec.podFailurePolicy.rules[0].onExitCodes.values[0]", "must not be 0"},
      {", podFailurePolicy: {rules: [{action: Ignore}]}", "spec.podFailurePolicy.rules[0]",
       "one of onExitCodes and onPodConditions"},
  };
  for (const Case& c : cases) {
    auto errs = AdmitYaml(kJob + c.extra + "}}");
    const FieldError* e = testing::FindError(errs, c.field);
    ASSERT_NE(e, nullptr) << c.extra << ": no error at " << c.field << Describe(errs);
    EXPECT_NE(e->message.find(c.message), std::string::npos) << c.extra << ": " << e->message;
  }
  auto always = AdmitYaml(
      "{apiVersion: batch/v1, kind: Job, metadata: {name: pi, namespace: a}, spec: {template: "
      "{spec: {restartPolicy: Always, containers: [{name: c, image: perl}]}}}}");
  const FieldError* e = testing::FindError(always, "spec.template.spec.restartPolicy");
  ASSERT_NE(e, nullptr) << Describe(always);
  EXPECT_EQ(e->reason, "FieldValueNotSupported");
  auto on_failure = AdmitYaml(
      "{apiVersion: batch/v1, kind: Job, metadata: {name: pi, namespace: a}, spec: "
      "{podFailurePolicy: "
      "{rules: [{action: Ignore, onPodConditions: [{type: DisruptionTarget}]}]}, template: {spec: "
      "{restartPolicy: OnFailure, containers: [{name: c, image: perl}]}}}}");
  EXPECT_NE(testing::FindError(on_failure, "spec.template.spec.restartPolicy"), nullptr)
      << Describe(on_failure);
}

TEST(BatchAdmission, CronJobScheduleZoneAndTemplate) {
  const std::string base =
      "{apiVersion: batch/v1, kind: CronJob, metadata: {name: nightly, namespace: a}, spec: "
      "{jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, containers: [{name: c, "
      "image: i}]}}}}";
  Json cron;
  auto errs = AdmitYaml(base + ", schedule: '0 3 * * *', timeZone: Europe/Berlin}}", &cron);
  ASSERT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(cron["spec"]["concurrencyPolicy"], "Allow");
  EXPECT_EQ(cron["spec"]["successfulJobsHistoryLimit"], 3);
  EXPECT_EQ(cron["spec"]["failedJobsHistoryLimit"], 1);
  EXPECT_EQ(cron["spec"]["jobTemplate"]["spec"]["backoffLimit"], 6);
  // The template's Jobs get their selector when each is created.
  EXPECT_FALSE(cron["spec"]["jobTemplate"]["spec"].contains("selector"));
  struct Case {
    std::string extra, field, message;
  };
  const std::vector<Case> cases = {
      {", schedule: '61 * * * *'", "spec.schedule", "minute field \"61\": out of range 0-59"},
      {", schedule: '@every 5m'", "spec.schedule", "unknown descriptor"},
      {", schedule: '* * * * *', timeZone: Mars/Olympus", "spec.timeZone", "unknown time zone"},
      {", schedule: '* * * * *', concurrencyPolicy: Sometimes", "spec.concurrencyPolicy",
       "Unsupported value"},
      {", schedule: '* * * * *', startingDeadlineSeconds: -5", "spec.startingDeadlineSeconds",
       "greater than or equal to 0"},
      {"", "spec.schedule", "Required value"},
  };
  for (const Case& c : cases) {
    auto e = AdmitYaml(base + c.extra + "}}");
    const FieldError* found = testing::FindError(e, c.field);
    ASSERT_NE(found, nullptr) << c.extra << ": no error at " << c.field << Describe(e);
    EXPECT_NE(found->message.find(c.message), std::string::npos) << found->message;
  }
  auto bad_template = AdmitYaml(
      "{apiVersion: batch/v1, kind: CronJob, metadata: {name: n, namespace: a}, spec: {schedule: "
      "'* * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: Always, containers: "
      "[{name: c, image: i}]}}}}}}");
  EXPECT_NE(testing::FindError(bad_template, "spec.jobTemplate.spec.template.spec.restartPolicy"),
            nullptr)
      << Describe(bad_template);
  auto long_name = AdmitYaml(
      "{apiVersion: batch/v1, kind: CronJob, metadata: {name: "
      "a-name-that-is-far-too-long-for-the-jobs-it-would-make-x, namespace: a}, spec: "
      "{schedule: '* * * * *', jobTemplate: {spec: {template: {spec: {restartPolicy: Never, "
      "containers: [{name: c, image: i}]}}}}}}");
  EXPECT_NE(testing::FindError(long_name, "metadata.name"), nullptr) << Describe(long_name);
}

TEST(BatchAdmission, VolcanoCronJobTemplateIsAdmittedAsAVolcanoJob) {
  Json cron;
  auto errs = AdmitYaml(
      "{apiVersion: batch.volcano.sh/v1alpha1, kind: CronJob, metadata: {name: v, namespace: a}, "
      "spec: {schedule: '*/5 * * * *', jobTemplate: {spec: {minAvailable: 1, tasks: [{name: t, "
      "replicas: 1, template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: "
      "busybox}]}}}]}}}}",
      &cron);
  ASSERT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(cron["spec"]["jobTemplate"]["spec"]["schedulerName"], "volcano");
  EXPECT_EQ(cron["spec"]["jobTemplate"]["spec"]["queue"], "default");
  auto bad = AdmitYaml(
      "{apiVersion: batch.volcano.sh/v1alpha1, kind: CronJob, metadata: {name: v, namespace: a}, "
      "spec: {schedule: '*/5 * * * *', jobTemplate: {spec: {minAvailable: 3, tasks: [{name: t, "
      "replicas: 1, template: {spec: {containers: [{name: c, image: busybox}]}}}]}}}}");
  EXPECT_NE(testing::FindError(bad, "spec.jobTemplate.spec.minAvailable"), nullptr)
      << Describe(bad);
}

}  // namespace
}  // namespace etna::api::admission
