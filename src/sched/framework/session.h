// Session: one scheduling cycle over a snapshot.
//
// The session owns a working copy of the snapshot, the plugins built for this cycle and the
// callbacks they registered on each extension point. Each extension point is dispatched by one
// function with one combination rule (see extension_points.h). Actions read the model through
// the accessors and change it only through a Statement; the session keeps the derived
// accounting (node used/releasing/pipelined, job and queue allocation, the free-GPU index) in
// step with every change and fires the plugins' event handlers.
//
// Thread-safety: none. A session lives on one thread for one cycle.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sched/framework/conf.h"
#include "sched/framework/decision.h"
#include "sched/framework/fit_errors.h"
#include "sched/framework/plugin.h"
#include "sched/framework/policies.h"
#include "sched/model/snapshot.h"
#include "sched/placement/free_gpu_index.h"

namespace etna::sched {

class Registry;

struct PredicateResult {
  bool ok = true;
  std::string reason;  // kube-style: "node(s) didn't match Pod's node affinity/selector"
  static PredicateResult Pass() { return {}; }
  static PredicateResult Fail(std::string reason) { return {false, std::move(reason)}; }
};

enum class Vote : int8_t { kReject = -1, kAbstain = 0, kPermit = 1 };

using JobOrderFn = std::function<int(const Job&, const Job&)>;
using QueueOrderFn = std::function<int(const Queue&, const Queue&)>;
using TaskOrderFn = std::function<int(const Task&, const Task&)>;
// Victim order: < 0 when `l` should be evicted before `r`.
using VictimOrderFn = std::function<int(const Task& l, const Task& r)>;
using PredicateFn = std::function<PredicateResult(const Task&, const Node&)>;
using NodeOrderFn = std::function<double(const Task&, const Node&)>;
// Returns the candidates the plugin allows to be evicted for `preemptor`, or nullopt to abstain.
using VictimFn = std::function<std::optional<std::vector<TaskIdx>>(
    const Task& preemptor, const std::vector<TaskIdx>& candidates)>;
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

// What a statement commit produces; the session turns these into the Decision.
enum class OpKind : uint8_t { kAllocate, kPipeline, kEvict };

class Session {
 public:
  Session(Snapshot snapshot, const SchedulerConf& conf, const Registry& registry);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Builds the plugins and lets each register its callbacks.
  Status Open();
  // Runs the configured actions in order.
  Status RunActions();
  // Closes plugins and produces the decision (job phases, conditions, backoff, reasons).
  Decision Close();
  // A monotonic clock in milliseconds: each plugin's open and close and each action is timed
  // into Decision::timings. Never read to decide anything.
  void SetTimer(std::function<double()> monotonic_ms) { timer_ = std::move(monotonic_ms); }

  // ---- Reports (for the decision's queue reports) ----
  // The fair-share plugin's deserved share of queue `q` this cycle.
  void ReportQueueDeserved(QueueIdx q, const ResourceLimit& deserved);
  // Per queue: allocated plus the pending tasks of its jobs that are not completed.
  std::vector<ResourceVector> QueueRequests() const;

  // ---- Model ----
  TimeMs now() const { return snap_.now_ms; }
  uint64_t capacity_generation() const { return snap_.capacity_generation; }
  std::vector<Node>& nodes() { return snap_.nodes; }
  const std::vector<Node>& nodes() const { return snap_.nodes; }
  std::vector<Job>& jobs() { return snap_.jobs; }
  const std::vector<Job>& jobs() const { return snap_.jobs; }
  std::vector<Task>& tasks() { return snap_.tasks; }
  const std::vector<Task>& tasks() const { return snap_.tasks; }
  std::vector<Queue>& queues() { return snap_.queues; }
  const std::vector<Queue>& queues() const { return snap_.queues; }
  const std::vector<Reservation>& reservations() const { return snap_.reservations; }
  const std::vector<HyperNode>& hypernodes() const { return snap_.hypernodes; }
  Node& node(NodeIdx i) { return snap_.nodes[i]; }
  Job& job(JobIdx i) { return snap_.jobs[i]; }
  Task& task(TaskIdx i) { return snap_.tasks[i]; }
  Queue& queue(QueueIdx i) { return snap_.queues[i]; }
  const Node& node(NodeIdx i) const { return snap_.nodes[i]; }
  const Job& job(JobIdx i) const { return snap_.jobs[i]; }
  const Task& task(TaskIdx i) const { return snap_.tasks[i]; }
  const Queue& queue(QueueIdx i) const { return snap_.queues[i]; }
  TaskIdx IndexOf(const Task& t) const { return static_cast<TaskIdx>(&t - snap_.tasks.data()); }
  JobIdx IndexOf(const Job& j) const { return static_cast<JobIdx>(&j - snap_.jobs.data()); }
  QueueIdx IndexOf(const Queue& q) const { return static_cast<QueueIdx>(&q - snap_.queues.data()); }
  NodeIdx IndexOf(const Node& n) const { return static_cast<NodeIdx>(&n - snap_.nodes.data()); }

  // Sum of allocatable over ready nodes.
  const ResourceVector& cluster_total() const { return cluster_total_; }
  // Nodes that can take new work (ready, not cordoned).
  bool Schedulable(const Node& n) const { return n.ready && !n.unschedulable; }
  const FreeGpuIndex& free_gpu_index() const { return gpu_index_; }
  // Resources of tasks being evicted or terminating, cluster-wide.
  const ResourceVector& total_releasing() const { return total_releasing_; }
  // Resources evicted so far this session (tentative or committed), cluster-wide and per job;
  // the eviction actions' per-cycle limits are measured against these.
  const ResourceVector& evicted_this_cycle() const { return evicted_; }
  const ResourceVector& evicted_this_cycle(JobIdx j) const { return job_evicted_[j]; }
  // Every node changed so far this session, in order (with repeats); placement caches replay
  // the part they have not seen.
  const std::vector<NodeIdx>& node_change_log() const { return node_change_log_; }
  const SchedulerConf& conf() const { return conf_; }

  // Pending tasks of a job in task order.
  std::vector<TaskIdx> PendingTasks(const Job& job) const;

  BackoffPolicy& backoff_policy() { return backoff_policy_; }
  PreemptionPolicy& preemption_policy() { return preemption_policy_; }
  ReservationPolicy& reservation_policy() { return reservation_policy_; }

  // ---- Registration (from Plugin::OnSessionOpen; gated by the plugin's enable flags) ----
  void AddJobOrderFn(JobOrderFn fn);
  void AddQueueOrderFn(QueueOrderFn fn);
  void AddTaskOrderFn(TaskOrderFn fn);
  void AddVictimOrderFn(VictimOrderFn fn);
  // `cacheable`: the result depends only on the task's spec and the node's static attributes
  // (labels, taints), so identical tasks may share it within the session.
  void AddPredicateFn(PredicateFn fn, bool cacheable = true);
  // `member_dependent`: the score also depends on where the task's job has other members
  // (topology scores), so it is recomputed for every task instead of cached per node.
  void AddNodeOrderFn(NodeOrderFn fn, bool member_dependent = false);
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

  // ---- Dispatch ----
  int CompareJobs(const Job& l, const Job& r) const;  // < 0: l first
  int CompareQueues(const Queue& l, const Queue& r) const;
  int CompareTasks(const Task& l, const Task& r) const;
  int CompareVictims(const Task& l, const Task& r) const;  // < 0: l evicted first
  // Static (cacheable) predicates, or all of them.
  PredicateResult Predicate(const Task& t, const Node& n, bool cacheable_only) const;
  PredicateResult DynamicPredicate(const Task& t, const Node& n) const;
  bool HasDynamicPredicates() const;
  // Set by a plugin whose predicate on one node can change when another node changes (pod
  // affinity by topology domain): the placer then re-checks every node for every task instead
  // of reusing one job's candidate list.
  void SetCrossNodePredicates() { cross_node_predicates_ = true; }
  bool cross_node_predicates() const { return cross_node_predicates_; }
  // The summed NodeOrder score: NodeScoreOwn (depends only on the task and the node) plus
  // NodeScoreMembers (depends on where the task's job members are too).
  double NodeScore(const Task& t, const Node& n) const;
  double NodeScoreOwn(const Task& t, const Node& n) const;
  double NodeScoreMembers(const Task& t, const Node& n) const;
  bool HasMemberScores() const;
  std::optional<std::vector<TaskIdx>> Preemptable(const Task& preemptor,
                                                  const std::vector<TaskIdx>& candidates) const;
  std::optional<std::vector<TaskIdx>> Reclaimable(const Task& preemptor,
                                                  const std::vector<TaskIdx>& candidates) const;
  bool Preemptive(const Queue& q, const Task& t) const;
  bool Overused(const Queue& q) const;
  PredicateResult Allocatable(const Queue& q, const Task& t) const;
  bool JobReady(const Job& j) const;
  bool JobPipelined(const Job& j) const;
  bool JobEnqueueable(const Job& j) const;
  void JobEnqueued(const Job& j) const;
  bool JobStarving(const Job& j) const;
  std::optional<std::string> JobValid(const Job& j) const;

  // ---- Mutation primitives (used by Statement only) ----
  void ApplyAllocate(TaskIdx t, NodeIdx n, std::vector<DeviceAllocation> devices);
  void UndoAllocate(TaskIdx t);
  void ApplyPipeline(TaskIdx t, NodeIdx n);
  void UndoPipeline(TaskIdx t);
  void ApplyEvict(TaskIdx t);
  void UndoEvict(TaskIdx t, TaskStatus previous);
  // Operations committed so far this session; unchanged means no decision was taken since.
  size_t committed_ops() const { return committed_ops_; }
  void RecordCommitted(OpKind kind, TaskIdx t, std::string reason, std::string message,
                       std::string preemptor_job_uid);

  // Chooses concrete GPU devices for a task on a node: the registered device choosers first,
  // then the default. Empty when the task asks for no GPUs; nullopt when the node's devices
  // cannot hold it.
  std::optional<std::vector<DeviceAllocation>> ChooseDevices(const Task& t, const Node& n) const;
  // Whether ChooseDevices would succeed. Cheap for the default chooser.
  bool DevicesAvailable(const Task& t, const Node& n) const;
  // The same, with the chooser's reason when it does not fit (empty when it gave none).
  bool DevicesAvailable(const Task& t, const Node& n, std::string* reason) const;
  // The default: whole GPUs inside the tightest NVLink domain that holds them all; a fraction
  // of a GPU on the fullest device with room.
  static std::optional<std::vector<DeviceAllocation>> DefaultDevices(const Task& t, const Node& n);
  static bool DefaultDevicesAvailable(const Task& t, const Node& n);
  // Whether the node can hold the task's request against `available` (Idle or FutureIdle),
  // including device-level GPU fit; fills `errors` with the resources that ran out.
  // `check_devices`: also require concrete free devices (for binding now, not pipelining).
  bool ResourceFits(const Task& t, const Node& n, const ResourceVector& available,
                    bool check_devices, FitErrors* errors) const;
  // Whether `t` may use the capacity reserved on `n` for another job: its job has a running
  // estimate and ends before the reservation's expected start (Slurm-style backfill).
  bool MayUseReserved(const Task& t, const Node& n) const;

  // ---- Incremental use (simulators, framework/incremental.h) ----
  // Appends a job or a pending task to the open session, keeping the accounting in step, so that
  // one session can place a stream of arrivals without copying the snapshot per arrival. The
  // task's `job` must already exist. Indices stay valid; references into tasks() may not.
  JobIdx AppendJob(Job job);
  TaskIdx AppendTask(Task task);
  // Gives up on a pending task that fits nowhere: it becomes Failed and leaves its job's
  // pending count and request.
  void AbandonTask(TaskIdx t);

  // ---- Outcome bookkeeping ----
  // An action tried to place the job; `placed` says whether it succeeded.
  void RecordAttempt(JobIdx j, bool placed);
  // Why the job is left pending, for its condition and for `etna explain`.
  void RecordUnschedulable(JobIdx j, std::string reason, std::string message);
  // Reservations to carry into the next cycle (replaces the previous set).
  void SetReservations(std::vector<Reservation> reservations);
  // Phase set by enqueue (or demotion back to Pending).
  void SetJobPhase(JobIdx j, PodGroupPhase phase);
  bool Attempted(JobIdx j) const { return job_outcomes_[j].attempted; }

 private:
  struct Registered;
  struct JobOutcome {
    bool attempted = false;
    bool placed = false;
    std::string reason;
    std::string message;
    PodGroupPhase original_phase = PodGroupPhase::kPending;
  };
  bool Enabled(ExtensionPoint p) const;
  void RecomputeAccounting();
  // Marks reserved capacity on nodes from snap_.reservations (after accounting).
  void LoadReservations();
  void AccountAdd(Task& t, bool pipelined);
  void AccountRemove(Task& t, bool pipelined);
  PodGroupPhase DerivePhase(const Job& job) const;
  // Fills decision_.queues.
  void ReportQueues();

  Snapshot snap_;
  const SchedulerConf& conf_;
  const Registry& registry_;
  std::vector<std::unique_ptr<Plugin>> plugins_;
  std::unique_ptr<Registered> fns_;
  const PluginOption* current_option_ = nullptr;
  int current_tier_ = 0;
  ResourceVector cluster_total_;
  FreeGpuIndex gpu_index_;
  ResourceVector total_releasing_;
  ResourceVector evicted_;
  std::vector<ResourceVector> job_evicted_;
  std::vector<NodeIdx> node_change_log_;
  size_t committed_ops_ = 0;
  BackoffPolicy backoff_policy_;
  PreemptionPolicy preemption_policy_;
  ReservationPolicy reservation_policy_;
  std::vector<JobOutcome> job_outcomes_;
  std::vector<Reservation> next_reservations_;
  bool reservations_set_ = false;
  bool cross_node_predicates_ = false;
  Decision decision_;
  std::function<double()> timer_;
  std::vector<ResourceLimit> queue_deserved_;
};

}  // namespace etna::sched
