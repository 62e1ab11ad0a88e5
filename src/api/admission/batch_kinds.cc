// Admission of batch/v1 Job and CronJob as the Kubernetes API server defaults and validates
// them (pkg/apis/batch/validation), and of Volcano's CronJob (batch.volcano.sh/v1alpha1), whose
// jobTemplate is a Volcano Job admitted as one. What etna does not run — per-index back-off,
// success policies, a manual selector, a Job managed by another controller, replacing only
// failed pods — is refused by name rather than accepted and ignored.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "api/admission/kinds.h"
#include "api/types/batch_job.h"
#include "common/cron.h"
#include "common/time_zone.h"

namespace etna::api::admission::internal {

namespace {

namespace types = etna::api::types;

// Kubernetes' limit on an Indexed Job's completions and parallelism.
constexpr int64_t kMaxIndexedCompletions = 100'000;
// A CronJob's name leaves room for its Jobs' "-<minutes>" suffix within a label value.
constexpr size_t kMaxCronJobNameLength = 52;

void Refuse(const Json& spec, const char* field, const std::string& path, std::string_view why,
            Errors& errs) {
  if (Field(spec, field)) errs.Forbidden(Child(path, field), why);
}

void ValidatePodFailurePolicy(const Json& policy, const std::string& path,
                              const std::string& restart_policy, Errors& errs) {
  if (restart_policy != "Never") {
    errs.Invalid("spec.template.spec.restartPolicy", restart_policy,
                 "only \"Never\" is supported when podFailurePolicy is specified");
  }
  const Json* rules = GetArray(policy, "rules", path, errs);
  if (!rules) {
    errs.Required(Child(path, "rules"));
    return;
  }
  if (rules->size() > 20) errs.TooLong(Child(path, "rules"), 20);
  for (size_t i = 0; i < rules->size(); ++i) {
    const Json& rule = (*rules)[i];
    const std::string rp = Index(Child(path, "rules"), i);
    auto action = GetString(rule, "action", rp, errs);
    if (!action) {
      errs.Required(Child(rp, "action"));
    } else if (*action == "FailIndex") {
      errs.Forbidden(Child(rp, "action"),
                     "FailIndex needs backoffLimitPerIndex, which etna does not support; use "
                     "FailJob, Ignore or Count");
    } else if (*action != "FailJob" && *action != "Ignore" && *action != "Count") {
      errs.NotSupported(Child(rp, "action"), *action, {"Count", "FailIndex", "FailJob", "Ignore"});
    }
    const Json* codes = GetObject(rule, "onExitCodes", rp, errs);
    const Json* conditions = GetArray(rule, "onPodConditions", rp, errs);
    if ((codes != nullptr) == (conditions != nullptr)) {
      errs.Invalid(rp, rule, "specifying one of onExitCodes and onPodConditions is required");
      continue;
    }
    if (codes) {
      const std::string cp = Child(rp, "onExitCodes");
      GetString(*codes, "containerName", cp, errs);
      auto op = GetString(*codes, "operator", cp, errs);
      if (!op || (*op != "In" && *op != "NotIn")) {
        errs.NotSupported(Child(cp, "operator"), op.value_or(""), {"In", "NotIn"});
      }
      const Json* values = GetArray(*codes, "values", cp, errs);
      if (!values || values->empty()) {
        errs.Required(Child(cp, "values"));
        continue;
      }
      if (values->size() > 255) errs.TooLong(Child(cp, "values"), 255);
      std::set<int64_t> seen;
      for (size_t j = 0; j < values->size(); ++j) {
        const std::string vp = Index(Child(cp, "values"), j);
        const Json& v = (*values)[j];
        if (!v.is_number_integer()) {
          errs.Invalid(vp, v, "must be an integer");
          continue;
        }
        if (op == "In" && v.get<int64_t>() == 0) {
          errs.Invalid(vp, v, "must not be 0 for the In operator");
        }
        if (!seen.insert(v.get<int64_t>()).second) errs.Duplicate(vp, v);
      }
    } else {
      for (size_t j = 0; j < conditions->size(); ++j) {
        const std::string pp = Index(Child(rp, "onPodConditions"), j);
        const Json& pc = (*conditions)[j];
        auto type = GetString(pc, "type", pp, errs);
        if (!type || type->empty()) errs.Required(Child(pp, "type"));
        auto status = GetString(pc, "status", pp, errs);
        if (status && *status != "True" && *status != "False" && *status != "Unknown") {
          errs.NotSupported(Child(pp, "status"), *status, {"False", "True", "Unknown"});
        }
      }
    }
  }
}

// A Job's spec at `path` ("spec", "spec.jobTemplate.spec"): defaults and checks. `uid` is the
// Job's own on create (its selector and template labels are derived from it), "" in a CronJob's
// template; `updating`: an existing Job's, whose selector
// was generated (CheckJobUpdate keeps it).
void AdmitBatchJobSpec(Json& spec, const std::string& path, const std::string& uid,
                       const std::string& name, bool updating, Errors& errs) {
  Refuse(spec, "backoffLimitPerIndex", path,
         "etna does not run per-index back-off: leave it out (backoffLimit applies to the Job)",
         errs);
  Refuse(spec, "maxFailedIndexes", path, "needs backoffLimitPerIndex, which etna does not run",
         errs);
  Refuse(spec, "successPolicy", path,
         "etna completes a Job when its completions succeed; success policies are not supported",
         errs);
  if (auto manual = GetBool(spec, "manualSelector", path, errs); manual && *manual) {
    errs.Forbidden(Child(path, "manualSelector"),
                   "etna generates each Job's selector from its uid; a manual selector is not "
                   "supported");
  }
  if (auto m = GetString(spec, "managedBy", path, errs);
      m && *m != "kubernetes.io/job-controller") {
    errs.NotSupported(Child(path, "managedBy"), *m, {"kubernetes.io/job-controller"});
  }
  if (auto r = GetString(spec, "podReplacementPolicy", path, errs);
      r && *r != "TerminatingOrFailed") {
    errs.Forbidden(Child(path, "podReplacementPolicy"),
                   "etna replaces a pod as soon as it is terminating or failed "
                   "(TerminatingOrFailed); other policies are not supported");
  }
  if (!Field(spec, "completions") && !Field(spec, "parallelism")) {
    spec["completions"] = 1;
    spec["parallelism"] = 1;
  }
  SetDefault(spec, "parallelism", 1);
  SetDefault(spec, "backoffLimit", 6);
  SetDefault(spec, "completionMode", "NonIndexed");
  SetDefault(spec, "suspend", false);
  auto parallelism = GetInt(spec, "parallelism", path, errs);
  if (parallelism) CheckNonNegative(*parallelism, Child(path, "parallelism"), errs);
  auto completions = GetInt(spec, "completions", path, errs);
  if (completions) CheckNonNegative(*completions, Child(path, "completions"), errs);
  if (auto b = GetInt(spec, "backoffLimit", path, errs)) {
    CheckNonNegative(*b, Child(path, "backoffLimit"), errs);
  }
  if (auto d = GetInt(spec, "activeDeadlineSeconds", path, errs); d && *d <= 0) {
    errs.Invalid(Child(path, "activeDeadlineSeconds"), *d, "must be greater than 0");
  }
  if (auto t = GetInt(spec, "ttlSecondsAfterFinished", path, errs)) {
    CheckNonNegative(*t, Child(path, "ttlSecondsAfterFinished"), errs);
  }
  GetBool(spec, "suspend", path, errs);
  auto mode = GetString(spec, "completionMode", path, errs);
  if (mode && *mode != "NonIndexed" && *mode != "Indexed") {
    errs.NotSupported(Child(path, "completionMode"), *mode, {"Indexed", "NonIndexed"});
  }
  if (mode == "Indexed") {
    if (!completions) {
      errs.Required(Child(path, "completions"), "when completion mode is Indexed");
    } else if (*completions > kMaxIndexedCompletions) {
      errs.Invalid(Child(path, "completions"), *completions,
                   fmt::format("must be less than or equal to {} when completion mode is Indexed",
                               kMaxIndexedCompletions));
    }
    if (parallelism && *parallelism > kMaxIndexedCompletions) {
      errs.Invalid(Child(path, "parallelism"), *parallelism,
                   fmt::format("must be less than or equal to {} when completion mode is Indexed",
                               kMaxIndexedCompletions));
    }
  }
  Json* tmpl = MutableField(spec, "template");
  if (!tmpl || !tmpl->is_object()) {
    errs.Required(Child(path, "template"));
    return;
  }
  if (Field(spec, "selector") && !updating) {
    // A CronJob's template too: each Job it makes would be refused.
    errs.Forbidden(Child(path, "selector"),
                   "etna generates each Job's selector from its uid; leave it out");
  } else if (!uid.empty()) {
    // Kubernetes' generated selector and the labels it puts on the template.
    Json& labels = (*tmpl)["metadata"]["labels"];
    if (!labels.is_object()) labels = Json::object();
    labels[types::kBatchControllerUidLabel] = uid;
    labels[types::kLegacyControllerUidLabel] = uid;
    labels[types::kBatchJobNameLabel] = name;
    labels[types::kLegacyJobNameLabel] = name;
    spec["selector"] = {{"matchLabels", {{types::kBatchControllerUidLabel, uid}}}};
  }
  const std::string tp = Child(path, "template.spec");
  Json* ps = MutableField(*tmpl, "spec");
  if (!ps) {
    errs.Required(tp);
    return;
  }
  DefaultPodSpec(*ps, /*is_pod=*/false);
  ValidatePodSpec(*ps, tp, errs);
  auto restart = GetString(*ps, "restartPolicy", tp, errs);
  if (!restart) {
    errs.Required(Child(tp, "restartPolicy"), "valid values: \"OnFailure\", \"Never\"");
  } else if (*restart != "OnFailure" && *restart != "Never") {
    errs.NotSupported(Child(tp, "restartPolicy"), *restart, {"OnFailure", "Never"});
  }
  if (const Json* policy = GetObject(spec, "podFailurePolicy", path, errs)) {
    ValidatePodFailurePolicy(*policy, Child(path, "podFailurePolicy"), restart.value_or(""), errs);
  }
}

// The fields of a Job's spec that may not change once it exists.
void CheckJobUpdate(const Json& spec, const Json& old_spec, Errors& errs) {
  for (const char* f : {"selector", "completionMode", "podFailurePolicy", "completions"}) {
    const Json* a = Field(spec, f);
    const Json* b = Field(old_spec, f);
    if ((a == nullptr) != (b == nullptr) || (a && *a != *b)) {
      errs.Invalid(Child("spec", f), a ? *a : Json(nullptr), "field is immutable");
    }
  }
  const Json* a = Field(spec, "template");
  const Json* b = Field(old_spec, "template");
  if (a && b && *a != *b) errs.Invalid("spec.template", *a, "field is immutable");
}

// What a CronJob's spec shares between batch/v1 and Volcano: schedule, timeZone, policy,
// deadlines and history limits.
void AdmitCronSchedule(Context& c, Json& spec) {
  Errors& errs = c.errs;
  if (NameOf(c.object).size() > kMaxCronJobNameLength) {
    errs.Invalid("metadata.name", NameOf(c.object),
                 fmt::format("must be no more than {} characters", kMaxCronJobNameLength));
  }
  SetDefault(spec, "concurrencyPolicy", "Allow");
  SetDefault(spec, "suspend", false);
  SetDefault(spec, "successfulJobsHistoryLimit", 3);
  SetDefault(spec, "failedJobsHistoryLimit", 1);
  auto schedule = GetString(spec, "schedule", "spec", errs);
  if (!schedule || schedule->empty()) {
    errs.Required("spec.schedule");
  } else if (auto parsed = CronSchedule::Parse(*schedule); !parsed.ok()) {
    errs.Invalid("spec.schedule", *schedule, parsed.status().message());
  }
  if (auto zone = GetString(spec, "timeZone", "spec", errs)) {
    if (auto loaded = TimeZone::Load(*zone); !loaded.ok()) {
      errs.Invalid("spec.timeZone", *zone, "unknown time zone " + *zone);
    }
  }
  if (auto p = GetString(spec, "concurrencyPolicy", "spec", errs);
      p && *p != "Allow" && *p != "Forbid" && *p != "Replace") {
    errs.NotSupported("spec.concurrencyPolicy", *p, {"Allow", "Forbid", "Replace"});
  }
  GetBool(spec, "suspend", "spec", errs);
  for (const char* f :
       {"startingDeadlineSeconds", "successfulJobsHistoryLimit", "failedJobsHistoryLimit"}) {
    if (auto v = GetInt(spec, f, "spec", errs)) CheckNonNegative(*v, Child("spec", f), errs);
  }
}

// Runs `admit` on a Job made of a CronJob's jobTemplate (its metadata, the CronJob's namespace),
// as if the Job were created now, with the errors' fields under spec.jobTemplate; the defaults
// it applies are kept in the template.
void AdmitJobTemplate(Context& c, Json& spec, void (*admit)(Context&)) {
  Json* tmpl = MutableField(spec, "jobTemplate");
  if (!tmpl || !tmpl->is_object()) {
    c.errs.Required("spec.jobTemplate");
    return;
  }
  Json job = {{"metadata", types::Object(*tmpl, {"metadata"})},
              {"spec", types::Object(*tmpl, {"spec"})}};
  job["metadata"]["namespace"] = NamespaceOf(c.object);
  job["metadata"]["name"] = NameOf(c.object);
  Errors inner;
  Context sub{c.info, Operation::kCreate, job, nullptr, c.lookup, inner};
  admit(sub);
  for (FieldError& e : inner.list()) {
    if (e.field.rfind("spec", 0) == 0) {
      e.field = "spec.jobTemplate." + e.field;
    } else if (e.field.rfind("metadata", 0) == 0) {
      e.field = "spec.jobTemplate." + e.field;
    }
    c.errs.list().push_back(std::move(e));
  }
  (*tmpl)["spec"] = job["spec"];
}

void AdmitTemplateBatchJob(Context& c) {
  Json* spec = MutableField(c.object, "spec");
  if (!spec || !spec->is_object()) {
    c.errs.Required("spec");
    return;
  }
  AdmitBatchJobSpec(*spec, "spec", "", NameOf(c.object), /*updating=*/false, c.errs);
}

}  // namespace

void AdmitBatchJob(Context& c) {
  Json* spec = MutableField(c.object, "spec");
  if (!spec || !spec->is_object()) {
    c.errs.Required("spec");
    return;
  }
  const bool create = c.op == Operation::kCreate || !c.old;
  std::string uid = create ? types::String(c.object, {"metadata", "uid"}) : "";
  AdmitBatchJobSpec(*spec, "spec", uid, NameOf(c.object), /*updating=*/!create, c.errs);
  if (!create) CheckJobUpdate(*spec, types::Object(*c.old, {"spec"}), c.errs);
}

void AdmitCronJob(Context& c) {
  Json* spec = MutableField(c.object, "spec");
  if (!spec || !spec->is_object()) {
    c.errs.Required("spec");
    return;
  }
  AdmitCronSchedule(c, *spec);
  AdmitJobTemplate(c, *spec, AdmitTemplateBatchJob);
}

void AdmitVolcanoCronJob(Context& c) {
  Json* spec = MutableField(c.object, "spec");
  if (!spec || !spec->is_object()) {
    c.errs.Required("spec");
    return;
  }
  AdmitCronSchedule(c, *spec);
  AdmitJobTemplate(c, *spec, AdmitJob);
}

}  // namespace etna::api::admission::internal
