#include "sched/plugins/priority.h"

#include "sched/framework/session.h"

namespace etna::sched {

Result<std::unique_ptr<Plugin>> PriorityPlugin::Create(PluginBuildContext&) {
  return std::unique_ptr<Plugin>(new PriorityPlugin());
}

void PriorityPlugin::OnSessionOpen(Session& s) {
  s.AddJobOrderFn([](const Job& l, const Job& r) {
    if (l.priority == r.priority) return 0;
    return l.priority > r.priority ? -1 : 1;
  });
  s.AddTaskOrderFn([](const Task& l, const Task& r) {
    if (l.priority == r.priority) return 0;
    return l.priority > r.priority ? -1 : 1;
  });
  auto victims = [&s](const Task& preemptor, const std::vector<TaskIdx>& candidates,
                      EvictionScope) {
    std::vector<TaskIdx> allowed;
    int32_t preemptor_job_priority =
        preemptor.job == kNone ? preemptor.priority : s.job(preemptor.job).priority;
    for (TaskIdx ti : candidates) {
      const Task& v = s.task(ti);
      if (v.job == preemptor.job && v.job != kNone) {
        if (v.priority < preemptor.priority) allowed.push_back(ti);
        continue;
      }
      int32_t victim_priority = v.job == kNone ? v.priority : s.job(v.job).priority;
      if (victim_priority < preemptor_job_priority) allowed.push_back(ti);
    }
    return std::optional<std::vector<TaskIdx>>(std::move(allowed));
  };
  s.AddPreemptableFn(victims);
  s.AddJobStarvingFn([](const Job& job) { return job.pending > 0; });
}

}  // namespace etna::sched
