// The job controller's view of one job during a reconcile (JobContext) and the pure helpers
// over a job's pods: phases, counts per task, pod states. Pure functions; JobContext is owned
// by one reconcile.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/types/job.h"
#include "api/types/pod.h"
#include "common/clock.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

struct JobContext {
  std::string key;
  Json job;  // the cached job; its status is edited in place and written at the end
  Json original_status;
  std::vector<Json> pods;  // the job's pods, all versions
  std::string phase;
  TimeMs now = 0;
  std::string reason, message;  // why the next phase change happens
  std::string command_done;     // path of a Command to delete once the status is written
  std::string command_uid;
  std::optional<TimeMs> wake_at;                  // reconcile again at this clock time
  std::vector<std::function<void()>> on_success;  // run once the status is written
  bool pods_deleted = false;   // pods deleted in this reconcile: c.pods is out of date
  std::function<void()> undo;  // puts back the recorded events taken, when the reconcile fails
};

struct TaskCounts {
  std::string name;
  int64_t replicas = 0, min_available = 0;
  int64_t pending = 0, running = 0, succeeded = 0, failed = 0, unknown = 0, terminating = 0;
};

// Completed, Failed, Terminated.
bool IsFinished(const std::string& phase);
// Counts of the current version's pods per task, in spec order.
std::vector<TaskCounts> CountTasks(const Json& job, const std::vector<Json>& pods);

}  // namespace etna::controllers
