#include "sched/plugins/gang.h"

#include <fmt/format.h>

#include <map>

#include "sched/framework/session.h"

namespace etna::sched {
namespace {

// Members per role that satisfy `counts`.
std::map<std::string, int32_t> CountByRole(const Session& s, const Job& job,
                                           bool (*counts)(TaskStatus)) {
  std::map<std::string, int32_t> out;
  for (TaskIdx ti : job.tasks) {
    const Task& t = s.task(ti);
    if (counts(t.status)) ++out[t.role];
  }
  return out;
}

bool RolesSatisfied(const Job& job, const std::map<std::string, int32_t>& have) {
  for (const auto& [role, min] : job.min_task_member) {
    auto it = have.find(role);
    if ((it == have.end() ? 0 : it->second) < min) return false;
  }
  return true;
}

bool ReadyStatus(TaskStatus s) {
  return (HoldsNode(s) && s != TaskStatus::kReleasing) || s == TaskStatus::kSucceeded;
}
bool PipelinedStatus(TaskStatus s) { return CountsForGang(s) || s == TaskStatus::kSucceeded; }
bool LiveStatus(TaskStatus s) { return s != TaskStatus::kFailed && s != TaskStatus::kUnknown; }

}  // namespace

Result<std::unique_ptr<Plugin>> GangPlugin::Create(PluginBuildContext&) {
  return std::unique_ptr<Plugin>(new GangPlugin());
}

void GangPlugin::OnSessionOpen(Session& s) {
  s.AddJobValidFn([&s](const Job& job) -> std::optional<std::string> {
    int32_t live = 0;
    for (TaskIdx ti : job.tasks) live += LiveStatus(s.task(ti).status);
    if (live < job.min_available) {
      return fmt::format("job {} has {} live tasks, fewer than minAvailable {}", job.name, live,
                         job.min_available);
    }
    auto roles = CountByRole(s, job, LiveStatus);
    for (const auto& [role, min] : job.min_task_member) {
      auto it = roles.find(role);
      int32_t have = it == roles.end() ? 0 : it->second;
      if (have < min) {
        return fmt::format("task {} of job {} has {} live pods, fewer than its minAvailable {}",
                           role, job.name, have, min);
      }
    }
    return std::nullopt;
  });

  auto ready = [&s](const Job& job) {
    if (job.ReadyCount() < job.min_available) return false;
    return job.min_task_member.empty() || RolesSatisfied(job, CountByRole(s, job, ReadyStatus));
  };
  s.AddJobReadyFn(ready);

  s.AddJobPipelinedFn([&s](const Job& job) {
    if (job.occupied + job.succeeded < job.min_available) return Vote::kReject;
    if (!job.min_task_member.empty() &&
        !RolesSatisfied(job, CountByRole(s, job, PipelinedStatus))) {
      return Vote::kReject;
    }
    return Vote::kPermit;
  });

  s.AddJobOrderFn([ready](const Job& l, const Job& r) {
    bool lr = ready(l), rr = ready(r);
    if (lr == rr) return 0;
    return lr ? 1 : -1;  // not-ready jobs first
  });

  // Members of roles with a minTaskMember go first, so the per-role minimums are met before
  // the gang's remaining places are filled.
  s.AddTaskOrderFn([&s](const Task& l, const Task& r) {
    if (l.job != r.job || l.job == kNone) return 0;
    const auto& mins = s.job(l.job).min_task_member;
    bool lm = mins.count(l.role) > 0, rm = mins.count(r.role) > 0;
    if (lm == rm) return 0;
    return lm ? -1 : 1;
  });

  s.AddJobStarvingFn(
      [](const Job& job) { return job.occupied + job.succeeded < job.min_available; });

  auto victims = [&s](const Task&, const std::vector<TaskIdx>& candidates, EvictionScope scope) {
    // A whole gang evicted together leaves no partial gang behind: each of its ready members
    // may go, whatever the job's minimums.
    bool whole_gang = scope == EvictionScope::kWholeGang;
    // Members each job can still give up, consumed as candidates are accepted.
    std::map<JobIdx, int32_t> spare;
    std::map<std::pair<JobIdx, std::string>, int32_t> role_spare;
    std::vector<TaskIdx> allowed;
    for (TaskIdx ti : candidates) {
      const Task& t = s.task(ti);
      if (t.job == kNone) {
        allowed.push_back(ti);
        continue;
      }
      const Job& job = s.job(t.job);
      int32_t min_available = whole_gang ? 0 : job.min_available;
      auto [it, fresh] = spare.try_emplace(t.job, job.ReadyCount() - min_available);
      if (it->second <= 0) continue;
      auto min_it = job.min_task_member.find(t.role);
      if (!whole_gang && min_it != job.min_task_member.end()) {
        auto key = std::make_pair(t.job, t.role);
        auto [rit, rfresh] = role_spare.try_emplace(key, 0);
        if (rfresh) {
          auto roles = CountByRole(s, job, ReadyStatus);
          rit->second = roles[t.role] - min_it->second;
        }
        if (rit->second <= 0) continue;
        --rit->second;
      }
      --it->second;
      allowed.push_back(ti);
    }
    return std::optional<std::vector<TaskIdx>>(std::move(allowed));
  };
  s.AddPreemptableFn(victims);
  s.AddReclaimableFn(victims);
}

}  // namespace etna::sched
