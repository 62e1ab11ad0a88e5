// batch/v1 Job and CronJob cells, as kubectl's printers compute them (printJob, printCronJob).
#include <fmt/format.h>

#include "api/resources/table.h"
#include "api/resources/table_printers.h"

namespace etna::api::resources::internal {

json BatchJobCells(const json& job, Clock::time_point now) {
  std::string status = "Running";
  for (const char* type : {"Failed", "Complete", "Suspended", "FailureTarget"}) {
    if (api::types::ConditionTrue(job, {"status", "conditions"}, type)) {
      status = type;
      break;
    }
  }
  if (status == "Running" && Find(job, {"metadata", "deletionTimestamp"}) != nullptr) {
    status = "Terminating";
  }
  const int64_t succeeded = Integer(job, {"status", "succeeded"});
  std::string completions;
  if (const json* c = Find(job, {"spec", "completions"}); c != nullptr && c->is_number()) {
    completions = fmt::format("{}/{}", succeeded, c->get<int64_t>());
  } else {
    int64_t parallelism = Integer(job, {"spec", "parallelism"});
    completions = parallelism > 1 ? fmt::format("{}/1 of {}", succeeded, parallelism)
                                  : fmt::format("{}/1", succeeded);
  }
  std::string duration;
  if (auto start = ParseTimestamp(String(job, {"status", "startTime"}))) {
    auto end = ParseTimestamp(String(job, {"status", "completionTime"})).value_or(now);
    duration = HumanDuration(std::chrono::duration_cast<std::chrono::seconds>(end - *start));
  }
  return WithWideCells(
      json::array({String(job, {"metadata", "name"}), status, completions, duration,
                   TimestampSince(Find(job, {"metadata", "creationTimestamp"}), now)}),
      api::types::Object(job, {"spec", "template"}), Find(job, {"spec", "selector"}));
}

json CronJobCells(const json& cron, Clock::time_point now) {
  const json* last = Find(cron, {"status", "lastScheduleTime"});
  std::string zone = String(cron, {"spec", "timeZone"});
  json cells =
      json::array({String(cron, {"metadata", "name"}), String(cron, {"spec", "schedule"}),
                   zone.empty() ? std::string("<none>") : zone, Bool(cron, {"spec", "suspend"}),
                   static_cast<int64_t>(Array(cron, {"status", "active"}).size()),
                   last == nullptr ? std::string("<none>") : TimestampSince(last, now),
                   TimestampSince(Find(cron, {"metadata", "creationTimestamp"}), now)});
  const json& job_template = api::types::Object(cron, {"spec", "jobTemplate"});
  return WithWideCells(std::move(cells), api::types::Object(job_template, {"spec", "template"}),
                       Find(job_template, {"spec", "selector"}));
}

}  // namespace etna::api::resources::internal
