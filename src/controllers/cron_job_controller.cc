#include "controllers/cron_job_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "api/types/batch_job.h"
#include "api/types/job.h"
#include "common/cron.h"
#include "common/time.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

CronJobFlavor BatchCronJobs() {
  CronJobFlavor f;
  f.controller_name = "cronjob-controller";
  f.cron_resource = "cronjobs";
  f.cron_api_version = "batch/v1";
  f.job_resource = "jobs";
  f.job_api_version = "batch/v1";
  f.outcome = [](const Json& job, TimeMs* at) -> std::string {
    const Json* c = types::BatchJob(job).FinishedCondition();
    if (c == nullptr) return "";
    *at = ParseRfc3339(types::String(*c, {"lastTransitionTime"})).value_or(0);
    return types::String(*c, {"type"});
  };
  return f;
}

CronJobFlavor VolcanoCronJobs() {
  CronJobFlavor f;
  f.controller_name = "volcano-cronjob-controller";
  f.cron_resource = "cronjobs.batch.volcano.sh";
  f.cron_api_version = "batch.volcano.sh/v1alpha1";
  f.job_resource = "jobs.batch.volcano.sh";
  f.job_api_version = "batch.volcano.sh/v1alpha1";
  f.outcome = [](const Json& job, TimeMs* at) -> std::string {
    std::string phase = types::Job(job).phase();
    if (phase != "Completed" && phase != "Failed" && phase != "Aborted" && phase != "Terminated") {
      return "";
    }
    *at = ParseRfc3339(types::String(job, {"status", "state", "lastTransitionTime"})).value_or(0);
    return phase == "Completed" ? "Complete" : "Failed";
  };
  return f;
}

namespace {

// The latest time in (earliest, now] at which `s` fired, searched over growing windows back
// from now so a frequent schedule after a long downtime costs a few thousand steps at most.
std::optional<TimeMs> MostRecent(const CronSchedule& s, const TimeZone& zone, TimeMs earliest,
                                 TimeMs now) {
  constexpr TimeMs kHour = 3'600'000;
  for (TimeMs window : {kHour, 24 * kHour, 32 * 24 * kHour, 367 * 24 * kHour, now - earliest}) {
    TimeMs start = std::max(earliest, now - window);
    std::optional<TimeMs> latest;
    TimeMs t = start;
    for (int steps = 0; steps < 100'000; ++steps) {
      auto next = s.Next(t, zone);
      if (!next || *next > now) break;
      latest = t = *next;
    }
    if (latest || start == earliest) return latest;
  }
  return std::nullopt;
}

Json JobRef(const Json& job, const std::string& api_version) {
  types::ObjectView v(job);
  return {{"apiVersion", api_version},
          {"kind", "Job"},
          {"name", v.name()},
          {"namespace", v.ns()},
          {"uid", v.uid()},
          {"resourceVersion", types::String(job, {"metadata", "resourceVersion"})}};
}

}  // namespace

CronJobController::CronJobController(ControllerOptions options, CronJobFlavor flavor)
    : Controller(flavor.controller_name, std::move(options)), flavor_(std::move(flavor)) {
  crons_ = Watch(client::Path(flavor_.cron_resource));
  jobs_ = Watch(client::Path(flavor_.job_resource), [this](const std::string&, const Json& job) {
    types::ObjectView view(job);
    for (const Json& ref : view.owner_references()) {
      if (types::String(ref, {"kind"}) == "CronJob" &&
          types::String(ref, {"apiVersion"}) == flavor_.cron_api_version) {
        queue().Add(view.ns() + "/" + types::String(ref, {"name"}));
      }
    }
  });
}

Json CronJobController::BuildJob(const Json& cron, TimeMs scheduled,
                                 const std::string& scheduled_text) const {
  types::CronJob view(cron);
  const Json& tmpl = view.job_template();
  Json meta = {
      {"name", fmt::format("{}-{}", view.name(), scheduled / 60'000)},
      {"namespace", view.ns()},
      {"ownerReferences", Json::array({ControllerRef(cron, flavor_.cron_api_version, "CronJob")})}};
  for (const char* f : {"labels", "annotations"}) {
    if (const Json* v = types::Find(tmpl, {"metadata", f})) meta[f] = *v;
  }
  meta["annotations"][types::kCronJobScheduledTimestampAnnotation] = scheduled_text;
  return {{"apiVersion", flavor_.job_api_version},
          {"kind", "Job"},
          {"metadata", std::move(meta)},
          {"spec", types::Object(tmpl, {"spec"})}};
}

Status CronJobController::TrimHistory(const Json& cron,
                                      std::vector<std::pair<TimeMs, Json>> finished,
                                      int64_t limit) {
  if (static_cast<int64_t>(finished.size()) <= limit) return Status::Ok();
  std::sort(finished.begin(), finished.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  types::ObjectView view(cron);
  const client::ObjectRef ref{"CronJob", flavor_.cron_api_version, view.ns(), view.name(),
                              view.uid()};
  for (size_t i = 0; i + limit < finished.size(); ++i) {
    std::string name = types::ObjectView(finished[i].second).name();
    Status s = rest().Delete(client::Path(flavor_.job_resource, view.ns(), name), -1, "Background");
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
    events().Record(ref, "Normal", "SuccessfulDelete", "Deleted job " + name);
  }
  return Status::Ok();
}

Result<TimeZone> CronJobController::Zone(const std::string& name) {
  auto it = zones_.find(name);
  if (it != zones_.end()) return it->second;
  auto zone = name.empty() ? TimeZone::Host() : TimeZone::Load(name);
  if (zone.ok()) zones_.emplace(name, *zone);
  return zone;
}

Status CronJobController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  auto cron = crons_->Get(ns, name);
  if (!cron || types::ObjectView(*cron).IsDeleting()) return Status::Ok();
  types::CronJob view(*cron);
  const TimeMs now = clock().NowMs();
  const client::ObjectRef ref{"CronJob", flavor_.cron_api_version, ns, name, view.uid()};
  const Json old_status = types::Object(*cron, {"status"});
  std::set<std::string> was_active;
  for (const Json& r : types::Array(old_status, {"active"})) {
    was_active.insert(types::String(r, {"uid"}));
  }
  std::vector<Json> active;
  std::vector<std::pair<TimeMs, Json>> succeeded, failed;
  TimeMs last_success = ParseRfc3339(types::String(old_status, {"lastSuccessfulTime"})).value_or(0);
  jobs_->ForEachInNamespace(ns, [&](const Json& job) {
    types::ObjectView j(job);
    if (j.ControllerUid() != view.uid()) return;
    TimeMs finished_at = 0;
    std::string outcome = flavor_.outcome(job, &finished_at);
    if (outcome.empty()) {
      if (!j.IsDeleting()) active.push_back(job);
      return;
    }
    if (was_active.count(j.uid())) {
      events().Record(ref, "Normal", "SawCompletedJob",
                      fmt::format("Saw completed job: {}, status: {}", j.name(), outcome));
    }
    if (outcome == "Complete") {
      last_success = std::max(last_success, finished_at);
      succeeded.emplace_back(finished_at, job);
    } else {
      failed.emplace_back(finished_at, job);
    }
  });
  ETNA_RETURN_IF_ERROR(TrimHistory(*cron, succeeded, view.successful_jobs_history_limit()));
  ETNA_RETURN_IF_ERROR(TrimHistory(*cron, failed, view.failed_jobs_history_limit()));

  Json status = old_status.is_object() ? old_status : Json::object();
  if (last_success > 0) status["lastSuccessfulTime"] = FormatRfc3339(last_success);
  auto write = [&]() -> Status {
    Json refs = Json::array();
    for (const Json& job : active) refs.push_back(JobRef(job, flavor_.job_api_version));
    if (refs.empty()) {
      status.erase("active");
    } else {
      status["active"] = refs;
    }
    if (status == old_status) return Status::Ok();
    Json patch = status;
    if (!status.contains("active") && old_status.contains("active")) patch["active"] = nullptr;
    auto patched = rest().MergePatch(client::Path(flavor_.cron_resource, ns, name),
                                     {{"status", patch}}, "status");
    if (!patched.ok() && patched.status().code() != StatusCode::kNotFound) {
      return patched.status();
    }
    return Status::Ok();
  };

  auto schedule = CronSchedule::Parse(view.schedule());
  if (!schedule.ok()) {
    events().Record(ref, "Warning", "UnparseableSchedule",
                    fmt::format("unparseable schedule: \"{}\": {}", view.schedule(),
                                schedule.status().message()));
    return write();
  }
  auto zone = Zone(view.time_zone());
  if (!zone.ok()) {
    events().Record(ref, "Warning", "UnknownTimeZone", zone.status().message());
    return write();
  }
  if (view.suspended()) return write();
  TimeMs earliest = ParseRfc3339(types::String(old_status, {"lastScheduleTime"}))
                        .value_or(ParseRfc3339(view.creation_timestamp()).value_or(now));
  if (auto deadline = view.starting_deadline_seconds()) {
    earliest = std::max(earliest, now - *deadline * 1000);
  }
  if (auto next = schedule->Next(now, *zone)) queue().AddAt(key, *next);
  auto due = MostRecent(*schedule, *zone, earliest, now);
  if (!due) return write();
  const std::string policy = view.concurrency_policy();
  if (policy == "Forbid" && !active.empty()) {
    events().Record(ref, "Normal", "JobAlreadyActive",
                    "Not starting job because prior execution is running and concurrency policy "
                    "is Forbid");
    return write();  // the due run starts when the active one ends, within the deadline
  }
  if (policy == "Replace") {
    for (const Json& job : active) {
      std::string job_name = types::ObjectView(job).name();
      Status s = rest().Delete(client::Path(flavor_.job_resource, ns, job_name), -1, "Background");
      if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
      events().Record(ref, "Normal", "SuccessfulDelete", "Deleted job " + job_name);
    }
    active.clear();
  }
  // RFC 3339 in the schedule's zone, "Z" when its offset is 0 (as Go formats it).
  Json job =
      BuildJob(*cron, *due,
               zone->OffsetSeconds(*due) == 0 ? FormatRfc3339(*due) : zone->FormatRfc3339(*due));
  const std::string job_name = types::String(job, {"metadata", "name"});
  auto made = rest().Create(client::Path(flavor_.job_resource, ns), job);
  if (made.ok()) {
    active.push_back(*made);
    events().Record(ref, "Normal", "SuccessfulCreate", "Created job " + job_name);
  } else if (made.status().code() == StatusCode::kAlreadyExists) {
    if (auto existing = jobs_->Get(ns, job_name)) {
      TimeMs at = 0;
      bool listed = std::any_of(active.begin(), active.end(), [&](const Json& a) {
        return types::ObjectView(a).name() == job_name;
      });
      if (!listed && flavor_.outcome(*existing, &at).empty()) active.push_back(*existing);
    }
  } else {
    events().Record(ref, "Warning", "FailedCreate",
                    fmt::format("Error creating job: {}", made.status().message()));
    ETNA_RETURN_IF_ERROR(write());
    return made.status();
  }
  status["lastScheduleTime"] = FormatRfc3339(*due);
  return write();
}

}  // namespace etna::controllers
