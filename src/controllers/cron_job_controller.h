// CronJobController: Kubernetes' cronjob controller (batch/v1 CronJob making batch/v1 Jobs) and,
// on the same code, Volcano's (batch.volcano.sh CronJob making Volcano Jobs); a CronJobFlavor
// says which.
//  - At each time spec.schedule fires (in spec.timeZone; the host's zone when unset, as the
//    controller manager's), creates a Job "<cronjob>-<minutes since the epoch>" from
//    spec.jobTemplate, owned by the CronJob and annotated with its scheduled time; only the
//    latest missed time is run after downtime, and not once startingDeadlineSeconds has passed.
//  - concurrencyPolicy: Allow runs Jobs side by side; Forbid waits while one is active (the due
//    run starts when it ends, if still within the deadline); Replace deletes the active ones.
//  - Keeps successfulJobsHistoryLimit finished-successful and failedJobsHistoryLimit failed Jobs,
//    deleting the oldest (their pods by cascade).
//  - status: active (references to the running Jobs), lastScheduleTime, lastSuccessfulTime.
//  - suspend stops new runs and leaves the running ones alone.
//  - Events: SuccessfulCreate, SuccessfulDelete, SawCompletedJob, JobAlreadyActive,
//    UnparseableSchedule, UnknownTimeZone.
// Keys: "<ns>/<name>" of CronJobs. Thread-safety: as Controller (one worker).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "common/time_zone.h"
#include "controllers/controller.h"

namespace etna::controllers {

using Json = nlohmann::json;

// The kinds a CronJobController works on.
struct CronJobFlavor {
  std::string controller_name;
  std::string cron_resource, cron_api_version;
  std::string job_resource, job_api_version;
  // "Complete" or "Failed" for a finished Job (and when it finished), "" while it runs.
  std::function<std::string(const Json& job, TimeMs* finished_at)> outcome;
};
// batch/v1 CronJob → batch/v1 Job.
CronJobFlavor BatchCronJobs();
// batch.volcano.sh/v1alpha1 CronJob → Volcano Job.
CronJobFlavor VolcanoCronJobs();

class CronJobController : public Controller {
 public:
  CronJobController(ControllerOptions options, CronJobFlavor flavor);
  ~CronJobController() override { Stop(); }

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // The Job for the run scheduled at `scheduled` (UTC ms) of `cron`.
  Json BuildJob(const Json& cron, TimeMs scheduled, const std::string& scheduled_text) const;
  // Deletes the oldest finished Jobs beyond the history limits.
  Status TrimHistory(const Json& cron, std::vector<std::pair<TimeMs, Json>> finished,
                     int64_t limit);

  // The zone named `name` ("" the host's), read from its file once.
  Result<TimeZone> Zone(const std::string& name);

  CronJobFlavor flavor_;
  std::map<std::string, TimeZone> zones_;  // the one worker's
  client::Informer* crons_;
  client::Informer* jobs_;
};

}  // namespace etna::controllers
