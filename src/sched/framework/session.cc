#include "sched/framework/session.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "sched/fairness/quota.h"
#include "sched/fairness/share.h"
#include "sched/framework/registry.h"

namespace etna::sched {
namespace {

template <typename Fn>
using TierFns = std::vector<std::vector<Fn>>;

template <typename Fn>
void Push(TierFns<Fn>& fns, int tier, Fn fn) {
  if (static_cast<int>(fns.size()) <= tier) fns.resize(tier + 1);
  fns[tier].push_back(std::move(fn));
}

// The combination rules, each written once.
template <typename Fn, typename... Args>
int FirstNonZero(const TierFns<Fn>& fns, const Args&... args) {
  for (const auto& tier : fns) {
    for (const auto& fn : tier) {
      if (int c = fn(args...); c != 0) return c;
    }
  }
  return 0;
}

template <typename Fn, typename... Args>
bool AllTrue(const TierFns<Fn>& fns, const Args&... args) {
  for (const auto& tier : fns) {
    for (const auto& fn : tier) {
      if (!fn(args...)) return false;
    }
  }
  return true;
}

template <typename Fn, typename... Args>
bool AnyTrue(const TierFns<Fn>& fns, const Args&... args) {
  for (const auto& tier : fns) {
    for (const auto& fn : tier) {
      if (fn(args...)) return true;
    }
  }
  return false;
}

// Any reject vetoes; a tier with a permit ends the walk; no opinion permits.
template <typename... Args>
bool VoteOf(const TierFns<JobVoteFn>& fns, const Args&... args) {
  for (const auto& tier : fns) {
    bool permit = false;
    for (const auto& fn : tier) {
      Vote v = fn(args...);
      if (v == Vote::kReject) return false;
      permit |= v == Vote::kPermit;
    }
    if (permit) return true;
  }
  return true;
}

// Victims: intersection of the voting plugins within a tier; the first tier with a vote decides.
std::optional<std::vector<TaskIdx>> IntersectVictims(const TierFns<VictimFn>& fns,
                                                     const Task& preemptor,
                                                     const std::vector<TaskIdx>& candidates) {
  for (const auto& tier : fns) {
    std::optional<std::vector<TaskIdx>> victims;
    for (const auto& fn : tier) {
      auto allowed = fn(preemptor, candidates);
      if (!allowed) continue;
      std::sort(allowed->begin(), allowed->end());
      if (!victims) {
        victims = std::move(allowed);
      } else {
        std::vector<TaskIdx> both;
        std::set_intersection(victims->begin(), victims->end(), allowed->begin(), allowed->end(),
                              std::back_inserter(both));
        *victims = std::move(both);
      }
    }
    if (victims) return victims;
  }
  return std::nullopt;
}

int FreeWholeGpus(const Node& n) {
  if (n.gpus.empty()) return static_cast<int>((n.allocatable.Get(kGpu) - n.used.Get(kGpu)) / 1000);
  int free = 0;
  for (const auto& g : n.gpus) free += g.WholeFree();
  return free;
}

// Adds (sign 1) or removes (sign -1) a task's device allocations to its node's devices.
void AccountDevices(Node& n, const std::vector<DeviceAllocation>& devices, int sign) {
  for (const auto& d : devices) {
    if (d.gpu < 0 || d.gpu >= static_cast<int32_t>(n.gpus.size())) continue;
    GpuDevice& g = n.gpus[d.gpu];
    g.used_milli += sign * d.milli;
    g.used_memory_mib += sign * d.memory_mib;
    if (d.mig_instance >= 0 && d.mig_instance < static_cast<int32_t>(g.mig.size())) {
      g.mig[d.mig_instance].used = sign > 0;
    }
  }
}

}  // namespace

struct Session::Registered {
  TierFns<JobOrderFn> job_order;
  TierFns<QueueOrderFn> queue_order;
  TierFns<TaskOrderFn> task_order;
  TierFns<VictimOrderFn> victim_order;
  TierFns<PredicateFn> predicate_static;
  TierFns<PredicateFn> predicate_dynamic;
  TierFns<NodeOrderFn> node_order;
  TierFns<NodeOrderFn> node_order_members;
  TierFns<VictimFn> preemptable;
  TierFns<VictimFn> reclaimable;
  TierFns<QueueTaskFn> preemptive;
  TierFns<QueueFn> overused;
  TierFns<AllocatableFn> allocatable;
  TierFns<JobFn> job_ready;
  TierFns<JobVoteFn> job_pipelined;
  TierFns<JobVoteFn> job_enqueueable;
  TierFns<JobEnqueuedFn> job_enqueued;
  TierFns<JobFn> job_starving;
  TierFns<JobValidFn> job_valid;
  std::vector<EventHandler> handlers;
  std::vector<DeviceChooserFn> device_choosers;
};

Session::Session(Snapshot snapshot, const SchedulerConf& conf, const Registry& registry)
    : snap_(std::move(snapshot)),
      conf_(conf),
      registry_(registry),
      fns_(std::make_unique<Registered>()) {
  job_outcomes_.resize(snap_.jobs.size());
  job_evicted_.resize(snap_.jobs.size());
  queue_deserved_.resize(snap_.queues.size());
  for (size_t j = 0; j < snap_.jobs.size(); ++j) {
    job_outcomes_[j].original_phase = snap_.jobs[j].phase;
  }
  RecomputeAccounting();
  LoadReservations();
}

Session::~Session() = default;

void Session::LoadReservations() {
  for (auto& n : snap_.nodes) {
    n.reserved = ResourceVector();
    n.reserved_for = kNone;
    n.reserved_start_ms = -1;
  }
  std::map<std::string, JobIdx> by_uid;
  for (size_t j = 0; j < snap_.jobs.size(); ++j) by_uid[snap_.jobs[j].uid] = static_cast<JobIdx>(j);
  for (const auto& r : snap_.reservations) {
    auto it = by_uid.find(r.job_uid);
    if (it == by_uid.end()) continue;
    JobIdx ji = it->second;
    // Expected start: every reserved node has room once the tasks that must leave it are gone
    // (earliest expected end first); a task with no estimate never counts as leaving.
    constexpr TimeMs kUnknown = -1;
    TimeMs start = snap_.now_ms;
    std::vector<NodeIdx> claimed;
    for (const auto& [ni, amount] : r.nodes) {
      if (ni < 0 || ni >= static_cast<NodeIdx>(snap_.nodes.size())) continue;
      Node& n = snap_.nodes[ni];
      if (n.reserved_for != kNone && n.reserved_for != ji) continue;  // first claim wins
      claimed.push_back(ni);
      n.reserved_for = ji;
      n.reserved += amount;
      if (start == kUnknown) continue;
      ResourceVector free = n.Idle();
      std::vector<std::pair<TimeMs, const Task*>> leaving;
      for (TaskIdx ti : n.tasks) {
        const Task& t = snap_.tasks[ti];
        if (t.job == ji || t.status == TaskStatus::kPipelined) continue;
        TimeMs end = kUnknown;
        if (t.status == TaskStatus::kReleasing) {
          end = snap_.now_ms;
        } else if (t.job != kNone && snap_.jobs[t.job].running_estimate_ms > 0) {
          end = std::max(snap_.now_ms, t.start_ms + snap_.jobs[t.job].running_estimate_ms);
        }
        leaving.emplace_back(end == kUnknown ? INT64_MAX : end, &t);
      }
      std::stable_sort(leaving.begin(), leaving.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      TimeMs ready = snap_.now_ms;
      for (const auto& [end, t] : leaving) {
        if (n.reserved.LessEqual(free)) break;
        free += t->request;
        ready = end;
      }
      if (!n.reserved.LessEqual(free) || ready == INT64_MAX) {
        start = kUnknown;
      } else {
        start = std::max(start, ready);
      }
    }
    for (NodeIdx ni : claimed) snap_.nodes[ni].reserved_start_ms = start;
  }
}

bool Session::MayUseReserved(const Task& t, const Node& n) const {
  if (n.reserved_for == kNone || t.job == n.reserved_for) return true;
  if (n.reserved_start_ms < 0 || t.job == kNone) return false;
  TimeMs estimate = snap_.jobs[t.job].running_estimate_ms;
  return estimate > 0 && snap_.now_ms + estimate <= n.reserved_start_ms;
}

void Session::RecomputeAccounting() {
  cluster_total_ = ResourceVector();
  total_releasing_ = ResourceVector();
  for (auto& n : snap_.nodes) {
    n.used = n.external_used;
    n.releasing = ResourceVector();
    n.pipelined = ResourceVector();
    n.tasks.clear();
    for (auto& g : n.gpus) {
      g.used_milli = 0;
      g.used_memory_mib = 0;
      for (auto& m : g.mig) m.used = false;
    }
    if (n.ready) cluster_total_ += n.allocatable;
  }
  for (auto& q : snap_.queues) q.allocated = ResourceVector();
  for (auto& j : snap_.jobs) {
    j.allocated = ResourceVector();
    j.total_request = ResourceVector();
    j.occupied = j.pipelined = j.succeeded = j.pending = 0;
  }
  for (auto& t : snap_.tasks) {
    Job* job = t.job == kNone ? nullptr : &snap_.jobs[t.job];
    if (t.status == TaskStatus::kSucceeded) {
      if (job) ++job->succeeded;
      continue;
    }
    if (t.status == TaskStatus::kFailed || t.status == TaskStatus::kUnknown) continue;
    if (job) job->total_request += t.request;
    if (t.status == TaskStatus::kPending) {
      if (job) ++job->pending;
      continue;
    }
    if (t.node == kNone) continue;
    Node& n = snap_.nodes[t.node];
    n.tasks.push_back(IndexOf(t));
    if (t.status == TaskStatus::kPipelined) {
      n.pipelined += t.request;
    } else {
      n.used += t.request;
      if (t.status == TaskStatus::kReleasing) {
        n.releasing += t.request;
        total_releasing_ += t.request;
      }
      AccountDevices(n, t.devices, 1);
    }
    if (job && CountsForGang(t.status)) {
      ++job->occupied;
      if (t.status == TaskStatus::kPipelined) ++job->pipelined;
      job->allocated += t.request;
      if (job->queue != kNone) snap_.queues[job->queue].allocated += t.request;
    }
  }
  gpu_index_.Reset(static_cast<int>(snap_.nodes.size()));
  for (size_t i = 0; i < snap_.nodes.size(); ++i) {
    const Node& n = snap_.nodes[i];
    gpu_index_.Update(static_cast<int32_t>(i), FreeWholeGpus(n), Schedulable(n));
  }
}

Status Session::Open() {
  for (size_t t = 0; t < conf_.tiers.size(); ++t) {
    for (const auto& option : conf_.tiers[t].plugins) {
      ETNA_ASSIGN_OR_RETURN(auto plugin, registry_.BuildPlugin(option));
      current_option_ = &option;
      current_tier_ = static_cast<int>(t);
      double start = timer_ ? timer_() : 0;
      plugin->OnSessionOpen(*this);
      if (timer_) {
        decision_.timings.plugins.push_back(
            {std::string(plugin->name()), "OnSessionOpen", timer_() - start});
      }
      plugins_.push_back(std::move(plugin));
    }
  }
  current_option_ = nullptr;
  return Status::Ok();
}

Status Session::RunActions() {
  for (const auto& name : conf_.actions) {
    Arguments args;
    if (auto it = conf_.action_arguments.find(name); it != conf_.action_arguments.end()) {
      args = it->second;
    }
    ETNA_ASSIGN_OR_RETURN(auto action, registry_.BuildAction(name, args));
    double start = timer_ ? timer_() : 0;
    action->Execute(*this);
    if (timer_) decision_.timings.actions.push_back({name, "", timer_() - start});
  }
  return Status::Ok();
}

bool Session::Enabled(ExtensionPoint p) const {
  return current_option_ == nullptr || current_option_->Enabled(p);
}

#define ETNA_ADD_FN(Method, Point, field, Type)                                          \
  void Session::Method(Type fn) {                                                        \
    if (Enabled(ExtensionPoint::Point)) Push(fns_->field, current_tier_, std::move(fn)); \
  }
ETNA_ADD_FN(AddJobOrderFn, kJobOrder, job_order, JobOrderFn)
ETNA_ADD_FN(AddQueueOrderFn, kQueueOrder, queue_order, QueueOrderFn)
ETNA_ADD_FN(AddTaskOrderFn, kTaskOrder, task_order, TaskOrderFn)
ETNA_ADD_FN(AddVictimOrderFn, kVictimOrder, victim_order, VictimOrderFn)
ETNA_ADD_FN(AddPreemptableFn, kPreemptable, preemptable, VictimFn)
ETNA_ADD_FN(AddReclaimableFn, kReclaimable, reclaimable, VictimFn)
ETNA_ADD_FN(AddPreemptiveFn, kPreemptive, preemptive, QueueTaskFn)
ETNA_ADD_FN(AddOverusedFn, kOverused, overused, QueueFn)
ETNA_ADD_FN(AddAllocatableFn, kAllocatable, allocatable, AllocatableFn)
ETNA_ADD_FN(AddJobReadyFn, kJobReady, job_ready, JobFn)
ETNA_ADD_FN(AddJobPipelinedFn, kJobPipelined, job_pipelined, JobVoteFn)
ETNA_ADD_FN(AddJobEnqueueableFn, kJobEnqueued, job_enqueueable, JobVoteFn)
ETNA_ADD_FN(AddJobEnqueuedFn, kJobEnqueued, job_enqueued, JobEnqueuedFn)
ETNA_ADD_FN(AddJobStarvingFn, kJobStarving, job_starving, JobFn)
ETNA_ADD_FN(AddJobValidFn, kJobValid, job_valid, JobValidFn)
#undef ETNA_ADD_FN

void Session::AddPredicateFn(PredicateFn fn, bool cacheable) {
  if (!Enabled(ExtensionPoint::kPredicate)) return;
  Push(cacheable ? fns_->predicate_static : fns_->predicate_dynamic, current_tier_, std::move(fn));
}

void Session::AddDeviceChooserFn(DeviceChooserFn fn) {
  fns_->device_choosers.push_back(std::move(fn));
}

void Session::AddNodeOrderFn(NodeOrderFn fn, bool member_dependent) {
  if (!Enabled(ExtensionPoint::kNodeOrder)) return;
  Push(member_dependent ? fns_->node_order_members : fns_->node_order, current_tier_,
       std::move(fn));
}

void Session::AddEventHandler(EventHandler handler) {
  if (Enabled(ExtensionPoint::kEventHandler)) fns_->handlers.push_back(std::move(handler));
}

int Session::CompareJobs(const Job& l, const Job& r) const {
  if (int c = FirstNonZero(fns_->job_order, l, r)) return c;
  if (l.creation_ms != r.creation_ms) return l.creation_ms < r.creation_ms ? -1 : 1;
  return l.uid.compare(r.uid);
}

int Session::CompareQueues(const Queue& l, const Queue& r) const {
  if (int c = FirstNonZero(fns_->queue_order, l, r)) return c;
  if (l.creation_ms != r.creation_ms) return l.creation_ms < r.creation_ms ? -1 : 1;
  return l.name.compare(r.name);
}

int Session::CompareTasks(const Task& l, const Task& r) const {
  if (int c = FirstNonZero(fns_->task_order, l, r)) return c;
  TaskIdx a = IndexOf(l), b = IndexOf(r);
  return a < b ? -1 : (a > b ? 1 : 0);
}

int Session::CompareVictims(const Task& l, const Task& r) const {
  return FirstNonZero(fns_->victim_order, l, r);
}

PredicateResult Session::Predicate(const Task& t, const Node& n, bool cacheable_only) const {
  for (const auto& tier : fns_->predicate_static) {
    for (const auto& fn : tier) {
      if (auto r = fn(t, n); !r.ok) return r;
    }
  }
  if (cacheable_only) return PredicateResult::Pass();
  return DynamicPredicate(t, n);
}

PredicateResult Session::DynamicPredicate(const Task& t, const Node& n) const {
  for (const auto& tier : fns_->predicate_dynamic) {
    for (const auto& fn : tier) {
      if (auto r = fn(t, n); !r.ok) return r;
    }
  }
  return PredicateResult::Pass();
}

bool Session::HasDynamicPredicates() const { return !fns_->predicate_dynamic.empty(); }

double Session::NodeScore(const Task& t, const Node& n) const {
  return NodeScoreOwn(t, n) + NodeScoreMembers(t, n);
}

double Session::NodeScoreOwn(const Task& t, const Node& n) const {
  double score = 0;
  for (const auto& tier : fns_->node_order) {
    for (const auto& fn : tier) score += fn(t, n);
  }
  return score;
}

double Session::NodeScoreMembers(const Task& t, const Node& n) const {
  double score = 0;
  for (const auto& tier : fns_->node_order_members) {
    for (const auto& fn : tier) score += fn(t, n);
  }
  return score;
}

bool Session::HasMemberScores() const { return !fns_->node_order_members.empty(); }

std::optional<std::vector<TaskIdx>> Session::Preemptable(
    const Task& preemptor, const std::vector<TaskIdx>& candidates) const {
  return IntersectVictims(fns_->preemptable, preemptor, candidates);
}

std::optional<std::vector<TaskIdx>> Session::Reclaimable(
    const Task& preemptor, const std::vector<TaskIdx>& candidates) const {
  return IntersectVictims(fns_->reclaimable, preemptor, candidates);
}

bool Session::Preemptive(const Queue& q, const Task& t) const {
  return AllTrue(fns_->preemptive, q, t);
}
bool Session::Overused(const Queue& q) const { return AnyTrue(fns_->overused, q); }
PredicateResult Session::Allocatable(const Queue& q, const Task& t) const {
  for (const auto& tier : fns_->allocatable) {
    for (const auto& fn : tier) {
      if (auto r = fn(q, t); !r.ok) return r;
    }
  }
  return PredicateResult::Pass();
}
bool Session::JobReady(const Job& j) const { return AllTrue(fns_->job_ready, j); }
bool Session::JobPipelined(const Job& j) const { return VoteOf(fns_->job_pipelined, j); }
bool Session::JobEnqueueable(const Job& j) const { return VoteOf(fns_->job_enqueueable, j); }

void Session::JobEnqueued(const Job& j) const {
  for (const auto& tier : fns_->job_enqueued) {
    for (const auto& fn : tier) fn(j);
  }
}

bool Session::JobStarving(const Job& j) const {
  for (const auto& tier : fns_->job_starving) {
    if (tier.empty()) continue;
    for (const auto& fn : tier) {
      if (!fn(j)) return false;
    }
    return true;
  }
  return false;
}

std::optional<std::string> Session::JobValid(const Job& j) const {
  for (const auto& tier : fns_->job_valid) {
    for (const auto& fn : tier) {
      if (auto reason = fn(j)) return reason;
    }
  }
  return std::nullopt;
}

std::vector<TaskIdx> Session::PendingTasks(const Job& job) const {
  std::vector<TaskIdx> out;
  for (TaskIdx t : job.tasks) {
    if (snap_.tasks[t].status == TaskStatus::kPending) out.push_back(t);
  }
  std::stable_sort(out.begin(), out.end(), [&](TaskIdx a, TaskIdx b) {
    return CompareTasks(snap_.tasks[a], snap_.tasks[b]) < 0;
  });
  return out;
}

// ---- Accounting ----

void Session::AccountAdd(Task& t, bool pipelined) {
  Node& n = snap_.nodes[t.node];
  n.tasks.push_back(IndexOf(t));
  if (pipelined) {
    n.pipelined += t.request;
  } else {
    n.used += t.request;
    AccountDevices(n, t.devices, 1);
  }
  if (t.job != kNone) {
    Job& j = snap_.jobs[t.job];
    ++j.occupied;
    if (pipelined) ++j.pipelined;
    --j.pending;
    j.allocated += t.request;
    if (j.queue != kNone) snap_.queues[j.queue].allocated += t.request;
  }
  gpu_index_.Update(t.node, FreeWholeGpus(n), Schedulable(n));
  node_change_log_.push_back(t.node);
  for (const auto& h : fns_->handlers) {
    if (h.on_allocate) h.on_allocate(t);
  }
}

void Session::AccountRemove(Task& t, bool pipelined) {
  Node& n = snap_.nodes[t.node];
  auto it = std::find(n.tasks.begin(), n.tasks.end(), IndexOf(t));
  if (it != n.tasks.end()) n.tasks.erase(it);
  if (pipelined) {
    n.pipelined -= t.request;
  } else {
    n.used -= t.request;
    AccountDevices(n, t.devices, -1);
  }
  if (t.job != kNone) {
    Job& j = snap_.jobs[t.job];
    --j.occupied;
    if (pipelined) --j.pipelined;
    ++j.pending;
    j.allocated -= t.request;
    if (j.queue != kNone) snap_.queues[j.queue].allocated -= t.request;
  }
  gpu_index_.Update(t.node, FreeWholeGpus(n), Schedulable(n));
  node_change_log_.push_back(t.node);
  for (const auto& h : fns_->handlers) {
    if (h.on_deallocate) h.on_deallocate(t);
  }
}

void Session::ApplyAllocate(TaskIdx ti, NodeIdx ni, std::vector<DeviceAllocation> devices) {
  Task& t = snap_.tasks[ti];
  t.status = TaskStatus::kAllocated;
  t.node = ni;
  t.devices = std::move(devices);
  AccountAdd(t, /*pipelined=*/false);
}

void Session::UndoAllocate(TaskIdx ti) {
  Task& t = snap_.tasks[ti];
  AccountRemove(t, /*pipelined=*/false);
  t.status = TaskStatus::kPending;
  t.node = kNone;
  t.devices.clear();
}

void Session::ApplyPipeline(TaskIdx ti, NodeIdx ni) {
  Task& t = snap_.tasks[ti];
  t.status = TaskStatus::kPipelined;
  t.node = ni;
  AccountAdd(t, /*pipelined=*/true);
}

void Session::UndoPipeline(TaskIdx ti) {
  Task& t = snap_.tasks[ti];
  AccountRemove(t, /*pipelined=*/true);
  t.status = TaskStatus::kPending;
  t.node = kNone;
}

// An evicted task keeps holding its node (used) until it is gone, but its resources count as
// releasing and it no longer counts toward its job or queue.
void Session::ApplyEvict(TaskIdx ti) {
  Task& t = snap_.tasks[ti];
  Node& n = snap_.nodes[t.node];
  n.releasing += t.request;
  total_releasing_ += t.request;
  node_change_log_.push_back(t.node);
  t.status = TaskStatus::kReleasing;
  evicted_ += t.request;
  if (t.job != kNone) {
    job_evicted_[t.job] += t.request;
    Job& j = snap_.jobs[t.job];
    --j.occupied;
    j.allocated -= t.request;
    if (j.queue != kNone) snap_.queues[j.queue].allocated -= t.request;
  }
  for (const auto& h : fns_->handlers) {
    if (h.on_deallocate) h.on_deallocate(t);
  }
}

void Session::UndoEvict(TaskIdx ti, TaskStatus previous) {
  Task& t = snap_.tasks[ti];
  Node& n = snap_.nodes[t.node];
  n.releasing -= t.request;
  total_releasing_ -= t.request;
  node_change_log_.push_back(t.node);
  t.status = previous;
  evicted_ -= t.request;
  if (t.job != kNone) {
    job_evicted_[t.job] -= t.request;
    Job& j = snap_.jobs[t.job];
    ++j.occupied;
    j.allocated += t.request;
    if (j.queue != kNone) snap_.queues[j.queue].allocated += t.request;
  }
  for (const auto& h : fns_->handlers) {
    if (h.on_allocate) h.on_allocate(t);
  }
}

void Session::RecordCommitted(OpKind kind, TaskIdx ti, std::string reason, std::string message,
                              std::string preemptor_job_uid) {
  ++committed_ops_;
  const Task& t = snap_.tasks[ti];
  const Node& n = snap_.nodes[t.node];
  switch (kind) {
    case OpKind::kAllocate: {
      BindDecision b{ti, t.uid, t.name, t.ns, n.name, {}, {}, t.devices};
      for (const auto& d : t.devices) {
        b.gpu_indices.push_back(d.gpu);
        b.gpu_uuids.push_back(n.gpus[d.gpu].uuid);
      }
      decision_.binds.push_back(std::move(b));
      break;
    }
    case OpKind::kPipeline:
      decision_.nominations.push_back({ti, t.uid, n.name});
      break;
    case OpKind::kEvict:
      decision_.evictions.push_back({ti, t.uid, t.name, t.ns, n.name, std::move(reason),
                                     std::move(message), std::move(preemptor_job_uid)});
      break;
  }
}

// ---- Devices ----

std::optional<std::vector<DeviceAllocation>> Session::ChooseDevices(const Task& t,
                                                                    const Node& n) const {
  for (const auto& fn : fns_->device_choosers) {
    if (auto answer = fn(t, n)) {
      if (!answer->fits) return std::nullopt;
      return std::move(answer->devices);
    }
  }
  return DefaultDevices(t, n);
}

bool Session::DevicesAvailable(const Task& t, const Node& n) const {
  if (fns_->device_choosers.empty()) return DefaultDevicesAvailable(t, n);
  return ChooseDevices(t, n).has_value();
}

bool Session::DevicesAvailable(const Task& t, const Node& n, std::string* reason) const {
  for (const auto& fn : fns_->device_choosers) {
    if (auto answer = fn(t, n)) {
      if (!answer->fits && reason) *reason = std::move(answer->reason);
      return answer->fits;
    }
  }
  return DefaultDevicesAvailable(t, n);
}

bool Session::ResourceFits(const Task& t, const Node& n, const ResourceVector& available,
                           bool check_devices, FitErrors* errors) const {
  uint32_t short_mask = t.request.ExceedMask(available);
  if (short_mask == 0 && !MayUseReserved(t, n)) {
    // Only the resources the task asks for count: a reservation short of GPUs does not keep
    // CPU-only work off the node.
    uint32_t reserved_mask = t.request.ExceedMask(available - n.reserved);
    for (int r = 0; r < kMaxResources; ++r) {
      if ((reserved_mask & (1u << r)) && t.request.Get(r) > 0) {
        if (errors) errors->AddNodeFailure("node(s) had capacity reserved for a starving job");
        return false;
      }
    }
  }
  bool device_request = t.request.Get(kGpu) > 0 || !fns_->device_choosers.empty();
  if (short_mask == 0 && check_devices && device_request && !n.gpus.empty()) {
    // Aggregate fit is not enough when devices are fragmented by shares.
    std::string reason;
    if (!DevicesAvailable(t, n, &reason)) {
      if (reason.empty()) {
        short_mask |= 1u << kGpu;
      } else {
        if (errors) errors->AddNodeFailure(reason);
        return false;
      }
    }
  }
  if (short_mask == 0) return true;
  if (errors) {
    for (int r = 0; r < kMaxResources; ++r) {
      if (short_mask & (1u << r)) {
        errors->AddNodeFailure("Insufficient " + ResourceNames::Global().Name(r));
      }
    }
  }
  return false;
}

// ---- Incremental use ----

JobIdx Session::AppendJob(Job job) {
  job.allocated = ResourceVector();
  job.total_request = ResourceVector();
  job.occupied = job.pipelined = job.succeeded = job.pending = 0;
  job.tasks.clear();
  snap_.jobs.push_back(std::move(job));
  JobOutcome outcome;
  outcome.original_phase = snap_.jobs.back().phase;
  job_outcomes_.push_back(std::move(outcome));
  job_evicted_.emplace_back();
  return static_cast<JobIdx>(snap_.jobs.size() - 1);
}

TaskIdx Session::AppendTask(Task task) {
  task.status = TaskStatus::kPending;
  task.node = kNone;
  task.devices.clear();
  TaskIdx ti = static_cast<TaskIdx>(snap_.tasks.size());
  if (task.job != kNone) {
    Job& j = snap_.jobs[task.job];
    j.tasks.push_back(ti);
    ++j.pending;
    j.total_request += task.request;
  }
  snap_.tasks.push_back(std::move(task));
  return ti;
}

void Session::AbandonTask(TaskIdx ti) {
  Task& t = snap_.tasks[ti];
  if (t.status != TaskStatus::kPending) return;
  t.status = TaskStatus::kFailed;
  if (t.job != kNone) {
    Job& j = snap_.jobs[t.job];
    --j.pending;
    j.total_request -= t.request;
  }
}

// ---- Outcomes ----

void Session::RecordAttempt(JobIdx j, bool placed) {
  job_outcomes_[j].attempted = true;
  job_outcomes_[j].placed = placed;
  if (placed) {
    job_outcomes_[j].reason.clear();
    job_outcomes_[j].message.clear();
  }
}

void Session::RecordUnschedulable(JobIdx j, std::string reason, std::string message) {
  job_outcomes_[j].reason = std::move(reason);
  job_outcomes_[j].message = std::move(message);
}

void Session::SetReservations(std::vector<Reservation> reservations) {
  next_reservations_ = std::move(reservations);
  reservations_set_ = true;
}

void Session::SetJobPhase(JobIdx j, PodGroupPhase phase) { snap_.jobs[j].phase = phase; }

PodGroupPhase Session::DerivePhase(const Job& job) const {
  int finished = 0, live = 0;
  for (TaskIdx ti : job.tasks) {
    TaskStatus s = snap_.tasks[ti].status;
    if (s == TaskStatus::kSucceeded || s == TaskStatus::kFailed)
      ++finished;
    else
      ++live;
  }
  if (!job.tasks.empty() && live == 0) return PodGroupPhase::kCompleted;
  int holding = 0;
  for (TaskIdx ti : job.tasks)
    holding +=
        HoldsNode(snap_.tasks[ti].status) && snap_.tasks[ti].status != TaskStatus::kReleasing;
  if (holding + job.succeeded >= job.min_available && holding > 0) return PodGroupPhase::kRunning;
  if (holding > 0 && job_outcomes_[IndexOf(job)].attempted && !job_outcomes_[IndexOf(job)].placed) {
    return PodGroupPhase::kUnknown;
  }
  if (job.phase == PodGroupPhase::kRunning || job.phase == PodGroupPhase::kUnknown) {
    return holding > 0 ? job.phase : PodGroupPhase::kPending;
  }
  return job.phase;
}

void Session::ReportQueueDeserved(QueueIdx q, const ResourceLimit& deserved) {
  queue_deserved_[q] = deserved;
}

std::vector<ResourceVector> Session::QueueRequests() const {
  std::vector<ResourceVector> out(snap_.queues.size());
  for (size_t q = 0; q < snap_.queues.size(); ++q) out[q] = snap_.queues[q].allocated;
  for (const Task& t : snap_.tasks) {
    if (t.status != TaskStatus::kPending || t.job == kNone) continue;
    const Job& job = snap_.jobs[t.job];
    if (job.queue != kNone && job.phase != PodGroupPhase::kCompleted) out[job.queue] += t.request;
  }
  return out;
}

void Session::ReportQueues() {
  std::vector<ResourceVector> requests = QueueRequests();
  ResourceVector total_guarantee;
  for (const Queue& q : snap_.queues) total_guarantee += q.guarantee.value();
  for (size_t i = 0; i < snap_.queues.size(); ++i) {
    const Queue& q = snap_.queues[i];
    QueueReport r;
    r.name = q.name;
    r.weight = q.weight;
    r.allocated = q.allocated;
    r.request = requests[i];
    r.deserved = queue_deserved_[i];
    r.capability = q.capability;
    r.real_capability =
        fairness::RealCapability(cluster_total_, total_guarantee, q.guarantee, q.capability);
    r.share = r.deserved.empty() ? 0 : fairness::ShareOfLimit(q.allocated, r.deserved).ToDouble();
    r.overused = Overused(q);
    decision_.queues.push_back(std::move(r));
  }
}

Decision Session::Close() {
  for (auto& p : plugins_) {
    double start = timer_ ? timer_() : 0;
    p->OnSessionClose(*this);
    if (timer_) {
      decision_.timings.plugins.push_back(
          {std::string(p->name()), "OnSessionClose", timer_() - start});
    }
  }
  ReportQueues();
  for (size_t ji = 0; ji < snap_.jobs.size(); ++ji) {
    Job& job = snap_.jobs[ji];
    JobOutcome& out = job_outcomes_[ji];
    JobUpdate u;
    u.job = static_cast<JobIdx>(ji);
    u.job_uid = job.uid;
    u.phase = DerivePhase(job);
    u.phase_changed = u.phase != out.original_phase;
    u.backoff = job.backoff;
    bool changed = u.phase_changed;
    if (out.attempted && out.placed) {
      u.condition = "Scheduled";
      u.backoff = Backoff{};
      changed = true;
    } else if (out.attempted || !out.reason.empty()) {
      u.condition = "Unschedulable";
      u.reason = out.reason.empty() ? "Unschedulable" : out.reason;
      u.message = out.message;
      if (out.attempted) {
        u.backoff = backoff_policy_.AfterFailure(job.backoff, now(), capacity_generation());
      }
      changed = true;
    }
    if (changed) decision_.jobs.push_back(std::move(u));
  }
  decision_.reservations = reservations_set_ ? next_reservations_ : snap_.reservations;
  return std::move(decision_);
}

}  // namespace etna::sched
