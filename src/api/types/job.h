// Job and JobTask: typed read views of a Volcano batch/v1alpha1 Job — its gang size
// (MinAvailable, with Volcano's default), tasks, queue, scheduler, retry counters, phase and the
// name of the PodGroup the job controller makes for it. Defaults are admission's (job.cc), so a
// job read here means what the API server stored. Thread-safety: const reads of the JSON only.
#pragma once

#include <cstdint>
#include <string>

#include "api/types/object.h"

namespace etna::api::types {

// One entry of spec.tasks.
class JobTask {
 public:
  explicit JobTask(const Json& task) : task_(&task) {}
  const Json& json() const { return *task_; }
  std::string name() const { return String(*task_, {"name"}); }
  int64_t replicas() const { return Integer(*task_, {"replicas"}); }
  // The task's minAvailable; its replicas when unset.
  int64_t MinAvailable() const { return Integer(*task_, {"minAvailable"}, replicas()); }
  const Json& pod_template() const { return Object(*task_, {"template"}); }
  const Json& containers() const { return Array(*task_, {"template", "spec", "containers"}); }

 private:
  const Json* task_;
};

class Job : public ObjectView {
 public:
  using ObjectView::ObjectView;

  const Json& tasks() const { return Array(json(), {"spec", "tasks"}); }
  // The sum of the tasks' replicas.
  int64_t TotalReplicas() const;
  // spec.minAvailable; the sum of the tasks' replicas when unset (Volcano's default).
  int64_t MinAvailable() const;
  std::string queue() const { return String(json(), {"spec", "queue"}, "default"); }
  std::string scheduler_name() const {
    return String(json(), {"spec", "schedulerName"}, "volcano");
  }
  std::string priority_class_name() const { return String(json(), {"spec", "priorityClassName"}); }
  int64_t max_retry() const { return Integer(json(), {"spec", "maxRetry"}, 3); }
  // status.version (bumped by each job restart) and status.retryCount.
  int64_t version() const { return Integer(json(), {"status", "version"}); }
  int64_t retry_count() const { return Integer(json(), {"status", "retryCount"}); }
  // status.state.phase; "" before the job controller first saw the job.
  std::string phase() const { return String(json(), {"status", "state", "phase"}); }
  // The one rule for a job's PodGroup name: Volcano >= 1.8 names it "<job>-<job uid>".
  std::string PodGroupName() const { return name() + "-" + uid(); }
};

}  // namespace etna::api::types
