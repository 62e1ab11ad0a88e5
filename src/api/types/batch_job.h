// Typed read views of batch/v1's Job (pods run to completion: parallelism, completions, indexed
// completion, backoff, deadline, suspension, pod failure policy) and CronJob (a Job made on a
// cron schedule), with the labels and annotations Kubernetes puts on a Job's pods, and the
// completed-index interval lists ("1,3-5") of an Indexed Job's status.
// Thread-safety: const reads of the JSON only; the free functions are pure.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "api/types/object.h"

namespace etna::api::types {

// The labels a Job's selector and pods carry (both spellings, as Kubernetes 1.27+ writes).
inline constexpr char kBatchControllerUidLabel[] = "batch.kubernetes.io/controller-uid";
inline constexpr char kLegacyControllerUidLabel[] = "controller-uid";
inline constexpr char kBatchJobNameLabel[] = "batch.kubernetes.io/job-name";
inline constexpr char kLegacyJobNameLabel[] = "job-name";
// An Indexed Job's pod: its index (annotation and label) and the env var the index is given in.
inline constexpr char kJobCompletionIndexAnnotation[] = "batch.kubernetes.io/job-completion-index";
inline constexpr char kJobCompletionIndexEnv[] = "JOB_COMPLETION_INDEX";
// The finalizer that keeps a Job's terminated pod until the Job has counted it.
inline constexpr char kJobTrackingFinalizer[] = "batch.kubernetes.io/job-tracking";
// A CronJob's Job: when it was scheduled for (RFC 3339).
inline constexpr char kCronJobScheduledTimestampAnnotation[] =
    "batch.kubernetes.io/cronjob-scheduled-timestamp";

class BatchJob : public ObjectView {
 public:
  using ObjectView::ObjectView;

  // spec.parallelism; 1 when unset, as the API server defaults it.
  int64_t parallelism() const { return Integer(json(), {"spec", "parallelism"}, 1); }
  // spec.completions; nullopt for a work-queue Job (done when any pod succeeds).
  std::optional<int64_t> completions() const;
  bool indexed() const { return String(json(), {"spec", "completionMode"}) == "Indexed"; }
  // spec.backoffLimit; 6 when unset.
  int64_t backoff_limit() const { return Integer(json(), {"spec", "backoffLimit"}, 6); }
  std::optional<int64_t> active_deadline_seconds() const;
  std::optional<int64_t> ttl_seconds_after_finished() const;
  bool suspended() const;
  const Json& pod_template() const { return Object(json(), {"spec", "template"}); }
  std::string restart_policy() const {
    return String(json(), {"spec", "template", "spec", "restartPolicy"}, "Never");
  }
  const Json& pod_failure_rules() const {
    return Array(json(), {"spec", "podFailurePolicy", "rules"});
  }
  int64_t succeeded() const { return Integer(json(), {"status", "succeeded"}); }
  int64_t failed() const { return Integer(json(), {"status", "failed"}); }
  // The Complete or Failed condition with status True; nullptr while the Job runs.
  const Json* FinishedCondition() const;
};

class CronJob : public ObjectView {
 public:
  using ObjectView::ObjectView;

  std::string schedule() const { return String(json(), {"spec", "schedule"}); }
  std::string time_zone() const { return String(json(), {"spec", "timeZone"}); }
  // "Allow" (the default), "Forbid" or "Replace".
  std::string concurrency_policy() const {
    return String(json(), {"spec", "concurrencyPolicy"}, "Allow");
  }
  bool suspended() const;
  std::optional<int64_t> starting_deadline_seconds() const;
  int64_t successful_jobs_history_limit() const {
    return Integer(json(), {"spec", "successfulJobsHistoryLimit"}, 3);
  }
  int64_t failed_jobs_history_limit() const {
    return Integer(json(), {"spec", "failedJobsHistoryLimit"}, 1);
  }
  const Json& job_template() const { return Object(json(), {"spec", "jobTemplate"}); }
};

// "1,3-5" → {1, 3, 4, 5}; nullopt when malformed.
std::optional<std::set<int64_t>> ParseIndexIntervals(const std::string& text);
// {1, 3, 4, 5} → "1,3-5".
std::string FormatIndexIntervals(const std::set<int64_t>& indexes);

}  // namespace etna::api::types
