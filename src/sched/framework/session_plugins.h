// PluginDispatch: the session's extension points (Volcano's session_plugins.go).
//
// Plugins register typed callbacks here from Plugin::OnSessionOpen, gated by their enable flags
// and grouped by tier; actions ask the combined answer through one function per extension point,
// each with the combination rule of its row in extension_points.h. Holds no model state: the
// callbacks read the session they captured.
//
// Thread-safety: none. Lives on the session's thread for one cycle.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sched/framework/conf.h"
#include "sched/framework/extension_points.h"
#include "sched/model/snapshot.h"

namespace etna::sched {

struct PredicateResult {
  bool ok = true;
  std::string reason;  // kube-style: "node(s) didn't match Pod's node affinity/selector"
  static PredicateResult Pass() { return {}; }
  static PredicateResult Fail(std::string reason) { return {false, std::move(reason)}; }
};

enum class Vote : int8_t { kReject = -1, kAbstain = 0, kPermit = 1 };

// What an eviction vote is asked about: victims picked one by one, each job keeping its gang
// (the gang rule allows only members a job can spare), or one job's running members evicted
// all together (preemption.wholeGang), which leaves no partial gang behind, so the gang rule
// allows them all. Every other rule votes the same either way.
enum class EvictionScope : uint8_t { kSpareMembers, kWholeGang };

using JobOrderFn = std::function<int(const Job&, const Job&)>;
using QueueOrderFn = std::function<int(const Queue&, const Queue&)>;
using TaskOrderFn = std::function<int(const Task&, const Task&)>;
// Victim order: < 0 when `l` should be evicted before `r`.
using VictimOrderFn = std::function<int(const Task& l, const Task& r)>;
using PredicateFn = std::function<PredicateResult(const Task&, const Node&)>;
using NodeOrderFn = std::function<double(const Task&, const Node&)>;
// A score that also depends on where the task's job has other members (topology): adds each
// of `nodes`' score to `scores` (same index), so that what it reads of the job once per task
// is not read again per node.
using MemberNodeOrderFn = std::function<void(const Task&, const std::vector<const Node*>& nodes,
                                             std::vector<double>& scores)>;
// Returns the candidates the plugin allows to be evicted for `preemptor`, or nullopt to abstain.
using VictimFn = std::function<std::optional<std::vector<TaskIdx>>(
    const Task& preemptor, const std::vector<TaskIdx>& candidates, EvictionScope scope)>;
using QueueFn = std::function<bool(const Queue&)>;
using QueueTaskFn = std::function<bool(const Queue&, const Task&)>;
// Whether the queue may take the task now; a failure names the limit ("queue q: capability
// exceeded on nvidia.com/gpu (allocated 8, capability 8)").
using AllocatableFn = std::function<PredicateResult(const Queue&, const Task&)>;
using JobFn = std::function<bool(const Job&)>;
using JobVoteFn = std::function<Vote(const Job&)>;
// Returns a reason when the job is not valid (cannot be scheduled as specified).
using JobValidFn = std::function<std::optional<std::string>(const Job&)>;
using JobEnqueuedFn = std::function<void(const Job&)>;

// A device chooser's answer: whether the node's devices can hold the task and, if so, what the
// task gets of them.
struct DeviceChoice {
  bool fits = true;
  std::vector<DeviceAllocation> devices;
  std::string
      reason;  // when it does not fit: "node(s) had no free MIG instance of profile 1g.10gb"
};
// Chooses what a task gets of a node's GPU devices, or returns nullopt to leave the task to the
// next chooser (the first answer wins; the session's default takes whole GPUs inside one NVLink
// domain and fractional requests on the fullest device that has room).
using DeviceChooserFn = std::function<std::optional<DeviceChoice>(const Task&, const Node&)>;

struct EventHandler {
  std::function<void(const Task&)> on_allocate;    // task now holds (or is pipelined on) a node
  std::function<void(const Task&)> on_deallocate;  // undone or evicted
};

class PluginDispatch {
 public:
  PluginDispatch();
  ~PluginDispatch();
  PluginDispatch(const PluginDispatch&) = delete;
  PluginDispatch& operator=(const PluginDispatch&) = delete;

  // ---- Registration (from Plugin::OnSessionOpen; gated by the plugin's enable flags) ----
  void AddJobOrderFn(JobOrderFn fn);
  void AddQueueOrderFn(QueueOrderFn fn);
  void AddTaskOrderFn(TaskOrderFn fn);
  void AddVictimOrderFn(VictimOrderFn fn);
  // `cacheable`: the result depends only on the task's spec and the node's static attributes
  // (labels, taints), so identical tasks may share it within the session.
  void AddPredicateFn(PredicateFn fn, bool cacheable = true);
  // Scores that depend only on the task and the node, cached per node for identical tasks.
  void AddNodeOrderFn(NodeOrderFn fn);
  // Scores recomputed for every task (topology scores: MemberNodeOrderFn).
  void AddMemberNodeOrderFn(MemberNodeOrderFn fn);
  void AddPreemptableFn(VictimFn fn);
  void AddReclaimableFn(VictimFn fn);
  void AddPreemptiveFn(QueueTaskFn fn);
  void AddOverusedFn(QueueFn fn);
  void AddAllocatableFn(AllocatableFn fn);
  void AddJobReadyFn(JobFn fn);
  void AddJobPipelinedFn(JobVoteFn fn);
  void AddJobEnqueueableFn(JobVoteFn fn);
  void AddJobEnqueuedFn(JobEnqueuedFn fn);
  void AddJobStarvingFn(JobFn fn);
  void AddJobValidFn(JobValidFn fn);
  void AddEventHandler(EventHandler handler);
  void AddDeviceChooserFn(DeviceChooserFn fn);
  // Set by a plugin whose predicate on one node can change when another node changes (pod
  // affinity by topology domain): the placer then re-checks every node for every task instead
  // of reusing one job's candidate list.
  void SetCrossNodePredicates() { cross_node_predicates_ = true; }

  // ---- Dispatch ----
  int CompareJobs(const Job& l, const Job& r) const;  // < 0: l first
  int CompareQueues(const Queue& l, const Queue& r) const;
  // The TaskOrder plugins only (0: no opinion); Session::CompareTasks breaks the tie.
  int TaskOrder(const Task& l, const Task& r) const;
  int CompareVictims(const Task& l, const Task& r) const;  // < 0: l evicted first
  // Static (cacheable) predicates, or all of them.
  PredicateResult Predicate(const Task& t, const Node& n, bool cacheable_only) const;
  PredicateResult DynamicPredicate(const Task& t, const Node& n) const;
  bool HasDynamicPredicates() const;
  bool cross_node_predicates() const { return cross_node_predicates_; }
  // The summed NodeOrder score: NodeScoreOwn (depends only on the task and the node) plus
  // NodeScoreMembers (depends on where the task's job members are too).
  double NodeScore(const Task& t, const Node& n) const;
  double NodeScoreOwn(const Task& t, const Node& n) const;
  double NodeScoreMembers(const Task& t, const Node& n) const;
  // Adds NodeScoreMembers of each of `nodes` to `scores` (same index; the same sums).
  void AddNodeScoresMembers(const Task& t, const std::vector<const Node*>& nodes,
                            std::vector<double>& scores) const;
  bool HasMemberScores() const;
  std::optional<std::vector<TaskIdx>> Preemptable(
      const Task& preemptor, const std::vector<TaskIdx>& candidates,
      EvictionScope scope = EvictionScope::kSpareMembers) const;
  std::optional<std::vector<TaskIdx>> Reclaimable(
      const Task& preemptor, const std::vector<TaskIdx>& candidates,
      EvictionScope scope = EvictionScope::kSpareMembers) const;
  bool Preemptive(const Queue& q, const Task& t) const;
  bool Overused(const Queue& q) const;
  PredicateResult Allocatable(const Queue& q, const Task& t) const;
  bool JobReady(const Job& j) const;
  bool JobPipelined(const Job& j) const;
  bool JobEnqueueable(const Job& j) const;
  void JobEnqueued(const Job& j) const;
  bool JobStarving(const Job& j) const;
  std::optional<std::string> JobValid(const Job& j) const;
  // The registered device choosers, in registration order (first answer wins).
  const std::vector<DeviceChooserFn>& device_choosers() const;
  // The EventHandlers, called after the session's accounting changed.
  void FireAllocate(const Task& t) const;
  void FireDeallocate(const Task& t) const;

 protected:
  // Registrations until the next call come from the plugin configured by `option` in `tier`;
  // null: not from a configured plugin (every point enabled, tier 0).
  void SetRegistrant(const PluginOption* option, int tier);

 private:
  struct Registered;
  bool Enabled(ExtensionPoint p) const;

  std::unique_ptr<Registered> fns_;
  mutable std::vector<const Node*> one_node_;  // NodeScoreMembers' scratch
  mutable std::vector<double> one_score_;
  const PluginOption* current_option_ = nullptr;
  int current_tier_ = 0;
  bool cross_node_predicates_ = false;
};

}  // namespace etna::sched
