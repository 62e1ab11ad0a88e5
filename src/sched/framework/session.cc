#include "sched/framework/session.h"

#include <algorithm>

#include "sched/fairness/quota.h"
#include "sched/fairness/share.h"
#include "sched/framework/registry.h"
#include "sched/framework/time_windows.h"

namespace etna::sched {

Session::Session(Snapshot snapshot, const SchedulerConf& conf, const Registry& registry)
    : SessionAccounting(std::move(snapshot), *this),
      SessionOutcomes(SessionAccounting::snapshot()),
      conf_(conf),
      registry_(registry) {}

Session::~Session() = default;

Status Session::Open() {
  int last_tier = 0;
  for (size_t t = 0; t < conf_.tiers.size(); ++t) {
    for (const auto& option : conf_.tiers[t].plugins) {
      ETNA_ASSIGN_OR_RETURN(auto plugin, registry_.BuildPlugin(option));
      last_tier = static_cast<int>(t);
      SetRegistrant(&option, last_tier);
      double start = timer_ ? timer_() : 0;
      plugin->OnSessionOpen(*this);
      if (timer_) {
        decision().timings.plugins.push_back(
            {std::string(plugin->name()), "OnSessionOpen", timer_() - start});
      }
      plugins_.push_back(std::move(plugin));
    }
  }
  // Later registrations (tests) are enabled everywhere and join the last plugin's tier.
  SetRegistrant(nullptr, last_tier);
  return Status::Ok();
}

Status Session::RunActions() {
  SuspendOutsideTimeWindows(*this);
  for (const auto& name : conf_.actions) {
    Arguments args;
    if (auto it = conf_.action_arguments.find(name); it != conf_.action_arguments.end()) {
      args = it->second;
    }
    ETNA_ASSIGN_OR_RETURN(auto action, registry_.BuildAction(name, args));
    double start = timer_ ? timer_() : 0;
    action->Execute(*this);
    if (timer_) decision().timings.actions.push_back({name, "", timer_() - start});
  }
  return Status::Ok();
}

int Session::CompareTasks(const Task& l, const Task& r) const {
  if (int c = TaskOrder(l, r)) return c;
  TaskIdx a = IndexOf(l), b = IndexOf(r);
  return a < b ? -1 : (a > b ? 1 : 0);
}

std::vector<TaskIdx> Session::PendingTasks(const Job& job) const {
  std::vector<TaskIdx> out;
  for (TaskIdx t : job.tasks) {
    if (tasks()[t].status == TaskStatus::kPending) out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(),
                   [&](TaskIdx a, TaskIdx b) { return CompareTasks(tasks()[a], tasks()[b]) < 0; });
  return out;
}

JobIdx Session::AppendJob(Job job) {
  PodGroupPhase phase = job.phase;
  JobIdx j = SessionAccounting::AppendJob(std::move(job));
  AddJob(phase);
  return j;
}

std::vector<ResourceVector> Session::QueueRequests() const {
  std::vector<ResourceVector> out(queues().size());
  for (size_t q = 0; q < queues().size(); ++q) out[q] = queues()[q].allocated;
  for (const Task& t : tasks()) {
    if (t.status != TaskStatus::kPending || t.job == kNone) continue;
    const Job& job = jobs()[t.job];
    if (job.queue != kNone && job.phase != PodGroupPhase::kCompleted) out[job.queue] += t.request;
  }
  return out;
}

void Session::ReportQueues() {
  std::vector<ResourceVector> requests = QueueRequests();
  ResourceVector total_guarantee;
  for (const Queue& q : queues()) total_guarantee += q.guarantee.value();
  for (size_t i = 0; i < queues().size(); ++i) {
    const Queue& q = queues()[i];
    QueueReport r;
    r.name = q.name;
    r.weight = q.weight;
    r.allocated = q.allocated;
    r.request = requests[i];
    r.deserved = queue_deserved(static_cast<QueueIdx>(i));
    r.capability = q.capability;
    r.real_capability =
        fairness::RealCapability(cluster_total(), total_guarantee, q.guarantee, q.capability);
    r.share = r.deserved.empty() ? 0 : fairness::ShareOfLimit(q.allocated, r.deserved).ToDouble();
    r.overused = Overused(q);
    const QueueFairshareReport& fs = queue_fairshare(static_cast<QueueIdx>(i));
    r.fairshare = fs.reported;
    r.usage_share = fs.usage_share;
    r.fairshare_factor = fs.factor;
    decision().queues.push_back(std::move(r));
  }
}

Decision Session::Close() {
  for (auto& p : plugins_) {
    double start = timer_ ? timer_() : 0;
    p->OnSessionClose(*this);
    if (timer_) {
      decision().timings.plugins.push_back(
          {std::string(p->name()), "OnSessionClose", timer_() - start});
    }
  }
  ReportQueues();
  return Finish(snapshot(), backoff_policy_, evicted_by_job());
}

}  // namespace etna::sched
