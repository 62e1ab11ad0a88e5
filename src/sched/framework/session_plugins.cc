#include "sched/framework/session_plugins.h"

#include <algorithm>
#include <iterator>

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
                                                     const std::vector<TaskIdx>& candidates,
                                                     EvictionScope scope) {
  for (const auto& tier : fns) {
    std::optional<std::vector<TaskIdx>> victims;
    for (const auto& fn : tier) {
      auto allowed = fn(preemptor, candidates, scope);
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

}  // namespace

struct PluginDispatch::Registered {
  TierFns<JobOrderFn> job_order;
  TierFns<QueueOrderFn> queue_order;
  TierFns<TaskOrderFn> task_order;
  TierFns<VictimOrderFn> victim_order;
  TierFns<PredicateFn> predicate_static;
  TierFns<PredicateFn> predicate_dynamic;
  TierFns<NodeOrderFn> node_order;
  TierFns<MemberNodeOrderFn> node_order_members;
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

PluginDispatch::PluginDispatch() : fns_(std::make_unique<Registered>()) {}
PluginDispatch::~PluginDispatch() = default;

void PluginDispatch::SetRegistrant(const PluginOption* option, int tier) {
  current_option_ = option;
  current_tier_ = tier;
}

bool PluginDispatch::Enabled(ExtensionPoint p) const {
  return current_option_ == nullptr || current_option_->Enabled(p);
}

#define ETNA_ADD_FN(Method, Point, field, Type)                                          \
  void PluginDispatch::Method(Type fn) {                                                 \
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

void PluginDispatch::AddPredicateFn(PredicateFn fn, bool cacheable) {
  if (!Enabled(ExtensionPoint::kPredicate)) return;
  Push(cacheable ? fns_->predicate_static : fns_->predicate_dynamic, current_tier_, std::move(fn));
}

void PluginDispatch::AddDeviceChooserFn(DeviceChooserFn fn) {
  fns_->device_choosers.push_back(std::move(fn));
}

void PluginDispatch::AddNodeOrderFn(NodeOrderFn fn) {
  if (Enabled(ExtensionPoint::kNodeOrder)) Push(fns_->node_order, current_tier_, std::move(fn));
}

void PluginDispatch::AddMemberNodeOrderFn(MemberNodeOrderFn fn) {
  if (Enabled(ExtensionPoint::kNodeOrder)) {
    Push(fns_->node_order_members, current_tier_, std::move(fn));
  }
}

void PluginDispatch::AddEventHandler(EventHandler handler) {
  if (Enabled(ExtensionPoint::kEventHandler)) fns_->handlers.push_back(std::move(handler));
}

int PluginDispatch::CompareJobs(const Job& l, const Job& r) const {
  if (int c = FirstNonZero(fns_->job_order, l, r)) return c;
  if (l.creation_ms != r.creation_ms) return l.creation_ms < r.creation_ms ? -1 : 1;
  return l.uid.compare(r.uid);
}

int PluginDispatch::CompareQueues(const Queue& l, const Queue& r) const {
  if (int c = FirstNonZero(fns_->queue_order, l, r)) return c;
  if (l.creation_ms != r.creation_ms) return l.creation_ms < r.creation_ms ? -1 : 1;
  return l.name.compare(r.name);
}

int PluginDispatch::TaskOrder(const Task& l, const Task& r) const {
  return FirstNonZero(fns_->task_order, l, r);
}

int PluginDispatch::CompareVictims(const Task& l, const Task& r) const {
  return FirstNonZero(fns_->victim_order, l, r);
}

PredicateResult PluginDispatch::Predicate(const Task& t, const Node& n, bool cacheable_only) const {
  for (const auto& tier : fns_->predicate_static) {
    for (const auto& fn : tier) {
      if (auto r = fn(t, n); !r.ok) return r;
    }
  }
  if (cacheable_only) return PredicateResult::Pass();
  return DynamicPredicate(t, n);
}

PredicateResult PluginDispatch::DynamicPredicate(const Task& t, const Node& n) const {
  for (const auto& tier : fns_->predicate_dynamic) {
    for (const auto& fn : tier) {
      if (auto r = fn(t, n); !r.ok) return r;
    }
  }
  return PredicateResult::Pass();
}

bool PluginDispatch::HasDynamicPredicates() const { return !fns_->predicate_dynamic.empty(); }

double PluginDispatch::NodeScore(const Task& t, const Node& n) const {
  return NodeScoreOwn(t, n) + NodeScoreMembers(t, n);
}

double PluginDispatch::NodeScoreOwn(const Task& t, const Node& n) const {
  double score = 0;
  for (const auto& tier : fns_->node_order) {
    for (const auto& fn : tier) score += fn(t, n);
  }
  return score;
}

double PluginDispatch::NodeScoreMembers(const Task& t, const Node& n) const {
  if (fns_->node_order_members.empty()) return 0;
  one_node_.assign(1, &n);
  one_score_.assign(1, 0.0);
  AddNodeScoresMembers(t, one_node_, one_score_);
  return one_score_[0];
}

void PluginDispatch::AddNodeScoresMembers(const Task& t, const std::vector<const Node*>& nodes,
                                          std::vector<double>& scores) const {
  for (const auto& tier : fns_->node_order_members) {
    for (const auto& fn : tier) fn(t, nodes, scores);
  }
}

bool PluginDispatch::HasMemberScores() const { return !fns_->node_order_members.empty(); }

std::optional<std::vector<TaskIdx>> PluginDispatch::Preemptable(
    const Task& preemptor, const std::vector<TaskIdx>& candidates, EvictionScope scope) const {
  return IntersectVictims(fns_->preemptable, preemptor, candidates, scope);
}

std::optional<std::vector<TaskIdx>> PluginDispatch::Reclaimable(
    const Task& preemptor, const std::vector<TaskIdx>& candidates, EvictionScope scope) const {
  return IntersectVictims(fns_->reclaimable, preemptor, candidates, scope);
}

bool PluginDispatch::Preemptive(const Queue& q, const Task& t) const {
  return AllTrue(fns_->preemptive, q, t);
}
bool PluginDispatch::Overused(const Queue& q) const { return AnyTrue(fns_->overused, q); }
PredicateResult PluginDispatch::Allocatable(const Queue& q, const Task& t) const {
  for (const auto& tier : fns_->allocatable) {
    for (const auto& fn : tier) {
      if (auto r = fn(q, t); !r.ok) return r;
    }
  }
  return PredicateResult::Pass();
}
bool PluginDispatch::JobReady(const Job& j) const { return AllTrue(fns_->job_ready, j); }
bool PluginDispatch::JobPipelined(const Job& j) const { return VoteOf(fns_->job_pipelined, j); }
bool PluginDispatch::JobEnqueueable(const Job& j) const { return VoteOf(fns_->job_enqueueable, j); }

void PluginDispatch::JobEnqueued(const Job& j) const {
  for (const auto& tier : fns_->job_enqueued) {
    for (const auto& fn : tier) fn(j);
  }
}

bool PluginDispatch::JobStarving(const Job& j) const {
  for (const auto& tier : fns_->job_starving) {
    if (tier.empty()) continue;
    for (const auto& fn : tier) {
      if (!fn(j)) return false;
    }
    return true;
  }
  return false;
}

std::optional<std::string> PluginDispatch::JobValid(const Job& j) const {
  for (const auto& tier : fns_->job_valid) {
    for (const auto& fn : tier) {
      if (auto reason = fn(j)) return reason;
    }
  }
  return std::nullopt;
}

const std::vector<DeviceChooserFn>& PluginDispatch::device_choosers() const {
  return fns_->device_choosers;
}

void PluginDispatch::FireAllocate(const Task& t) const {
  for (const auto& h : fns_->handlers) {
    if (h.on_allocate) h.on_allocate(t);
  }
}

void PluginDispatch::FireDeallocate(const Task& t) const {
  for (const auto& h : fns_->handlers) {
    if (h.on_deallocate) h.on_deallocate(t);
  }
}

}  // namespace etna::sched
