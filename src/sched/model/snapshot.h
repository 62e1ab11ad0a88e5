// The scheduling model: a snapshot of nodes (with GPU devices), queues, jobs (PodGroups) and
// tasks (pods) that the pure core schedules. Objects refer to each other by dense indices into
// the snapshot's vectors. The daemon and the simulator build snapshots; the core never does I/O.
//
// Fields under "session accounting" are derived: Session::Open recomputes them from the tasks,
// so a snapshot's producer only fills in the spec and status fields.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/resource.h"
#include "sched/model/labels.h"
#include "sched/model/usage.h"

namespace etna::sched {

using NodeIdx = int32_t;
using JobIdx = int32_t;
using TaskIdx = int32_t;
using QueueIdx = int32_t;
inline constexpr int32_t kNone = -1;

// One MIG instance carved out of a GPU (profile such as "1g.10gb").
struct MigInstance {
  std::string profile;
  int32_t id = 0;  // GPU instance id

  // Session accounting.
  bool used = false;
};

// The part of one device a task holds: a whole GPU, a share of one (compute milli, framebuffer
// MiB, SM percentage for MPS), or one MIG instance.
struct DeviceAllocation {
  int32_t gpu = 0;            // device index on the node
  int32_t milli = 1000;       // share of the device (1000: the whole GPU)
  int64_t memory_mib = 0;     // framebuffer reserved for a share; 0 when not limited
  int32_t cores_percent = 0;  // SM limit for a share (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE); 0: none
  int32_t mig_instance = -1;  // index into GpuDevice::mig, -1 when not a MIG instance

  bool operator==(const DeviceAllocation&) const = default;
};

// One physical GPU of a node and where it sits in the node's interconnect.
struct GpuDevice {
  int32_t index = 0;
  std::string uuid;
  std::string model;
  int64_t memory_mib = 0;
  bool healthy = true;
  int32_t numa_node = -1;
  int32_t nvlink_domain = -1;  // GPUs with the same value share an NVLink/NVSwitch domain
  int32_t pcie_switch = -1;
  std::vector<MigInstance> mig;  // empty: the GPU is used whole

  // Session accounting: what tasks hold of this device.
  int32_t used_milli = 0;
  int64_t used_memory_mib = 0;

  // Whole and unused: not partitioned into MIG instances, healthy, nothing on it (no compute
  // share and no memory share).
  bool WholeFree() const {
    return healthy && mig.empty() && used_milli == 0 && used_memory_mib == 0;
  }
};

struct Node {
  std::string name;
  ResourceVector allocatable;
  ResourceVector external_used;  // held by pods this scheduler does not manage
  // The GPUs (or shares, MIG instances) those pods hold, when known: a pod of a job that is gone
  // but still terminating keeps its devices until it ends.
  std::vector<DeviceAllocation> external_devices;
  Labels labels;
  std::vector<Taint> taints;
  std::vector<GpuDevice> gpus;
  bool ready = true;
  bool unschedulable = false;  // cordoned

  // Session accounting.
  ResourceVector used;         // external + every task occupying the node (incl. releasing)
  ResourceVector releasing;    // tasks being evicted or terminating
  ResourceVector pipelined;    // tasks waiting for releasing resources
  std::vector<TaskIdx> tasks;  // tasks occupying or pipelined on the node
  // Capacity held for a starving job (from Snapshot::reservations); other jobs may use it only
  // when they end before `reserved_start_ms` (-1: unknown, so they may not).
  ResourceVector reserved;
  JobIdx reserved_for = kNone;
  TimeMs reserved_start_ms = -1;

  ResourceVector Idle() const { return allocatable - used; }
  // What will be free once releasing tasks are gone and pipelined tasks have started.
  ResourceVector FutureIdle() const { return allocatable - used + releasing - pipelined; }
};

enum class QueueState : uint8_t { kOpen, kClosing, kClosed };

struct Queue {
  std::string name;
  int32_t weight = 1;
  ResourceLimit capability;  // hard upper limit (unnamed dimensions unbounded)
  ResourceLimit guarantee;   // reserved minimum
  ResourceLimit deserved;    // the share reclaim restores (capacity plugin)
  bool reclaimable = true;   // may other queues reclaim from it?
  QueueState state = QueueState::kOpen;
  int32_t priority = 0;
  QueueIdx parent = kNone;
  TimeMs creation_ms = 0;
  // The queue's time windows (Queue spec.timePolicies) as the caller resolved them against
  // its clock and time zone for this cycle; the core reads no clock or zone itself.
  struct TimeWindow {
    bool outside = false;      // outside every window: the queue starts no new work
    TimeMs next_open_ms = -1;  // when the next window opens; -1: none does
    std::string next_open;     // the same as a person reads it, "Mon 09:00"; "" when none
    bool suspend = false;      // spec.timePolicyAction Suspend: outside, its running jobs go too
  };
  TimeWindow window;
  // What the queue (itself, not its children) held in the past, decayed to the snapshot's time
  // by the caller with the fair-share half-life; zero when nobody keeps it.
  DecayedUsage usage;

  // Session accounting.
  ResourceVector allocated;  // tasks occupying nodes (incl. pipelined)
};

// "queue dev-test is outside its time windows (next opens Mon 09:00)": why a queue outside its
// windows starts no work, for job conditions and eviction messages.
std::string OutsideWindowMessage(const Queue& q);

enum class PodGroupPhase : uint8_t { kPending, kInqueue, kRunning, kUnknown, kCompleted };
const char* PodGroupPhaseName(PodGroupPhase phase);

// Retry state of a job that could not be placed; carried in the PodGroup's status.
struct Backoff {
  TimeMs not_before_ms = 0;  // no placement attempt before this time
  TimeMs delay_ms = 0;       // the current delay; doubles with each failure
  int32_t failures = 0;
  uint64_t capacity_generation = 0;  // Snapshot::capacity_generation at the last failure
};

struct Job {
  std::string uid;
  std::string name;
  std::string ns;
  QueueIdx queue = kNone;
  int32_t min_available = 0;
  std::map<std::string, int32_t> min_task_member;  // per task role
  ResourceVector min_resources;
  int32_t priority = 0;
  TimeMs creation_ms = 0;
  PodGroupPhase phase = PodGroupPhase::kPending;
  std::vector<TaskIdx> tasks;
  TimeMs sla_waiting_ms = 0;       // 0: no SLA
  TimeMs running_estimate_ms = 0;  // 0: unknown
  Backoff backoff;
  // What evictions took from the job in its current run, and when the run's first eviction was:
  // kept until the job is whole again (every live task holds a node, and tasks created since
  // then hold at least what was taken: its evicted members are back, not merely deleted). The
  // per-job preemption limit counts it across cycles; the daemon carries it in the PodGroup's
  // status.evictedInRun.
  ResourceVector evicted_in_run;
  TimeMs evicted_since_ms = 0;
  // PodGroup `networkTopology` (Volcano 1.12). kHard: every task lands inside one hypernode of
  // tier <= highest_tier_allowed; kSoft: the network-topology-aware plugin only prefers that.
  // kNone: the field is absent (a gang still prefers one node, then one switch).
  struct NetworkTopology {
    enum class Mode : uint8_t { kNone, kHard, kSoft };
    Mode mode = Mode::kNone;
    int32_t highest_tier_allowed = 1;
  };
  NetworkTopology network_topology;
  // PodGroup `spec.minZoneUsage`: the least of each named resource the gang must get in every
  // topology zone (tier-1 hypernode) where it gets some of it; zero: no rule
  // (actions/zone_usage.h).
  ResourceVector min_zone_usage;
  // Training or inference, for the seed's placement defaults (workload-defaults plugin). The
  // API layer sets kInference from the label `etna.io/workload: inference` (the podgroup
  // controller puts it on Deployment/ReplicaSet pods' groups); everything else is training.
  enum class Kind : uint8_t { kTraining, kInference };
  Kind kind = Kind::kTraining;

  // Session accounting.
  ResourceVector allocated;  // occupying + pipelined tasks
  int32_t occupied = 0;      // tasks allocated, pipelined, binding, bound or running
  int32_t pipelined = 0;     // of which pipelined
  int32_t succeeded = 0;
  int32_t pending = 0;           // tasks still to place
  ResourceVector total_request;  // every task not finished

  // Members that hold a node now (not pipelined), plus those that already succeeded.
  int32_t ReadyCount() const { return occupied - pipelined + succeeded; }
};

enum class TaskStatus : uint8_t {
  kPending,
  kAllocated,
  kPipelined,
  kBinding,
  kBound,
  kRunning,
  kReleasing,
  kSucceeded,
  kFailed,
  kUnknown,
};
const char* TaskStatusName(TaskStatus status);
// True for statuses that hold resources on a node (Allocated, Binding, Bound, Running, Releasing).
bool HoldsNode(TaskStatus status);
// True for statuses counted toward a gang's ready members (HoldsNode or Pipelined, not Releasing).
bool CountsForGang(TaskStatus status);

// The part of a pod spec that placement depends on, shared by identical tasks of one job so
// that predicate results can be shared too.
struct NodeSelectorTerm {
  std::vector<SelectorRequirement> match_expressions;  // on node labels
  std::vector<SelectorRequirement> match_fields;       // on "metadata.name"
};
struct PreferredNodeTerm {
  int32_t weight = 0;
  NodeSelectorTerm term;
};
struct PodAffinityTerm {
  LabelSelector selector;
  std::vector<std::string> namespaces;  // empty: the pod's own namespace
  std::string topology_key;
};
struct WeightedPodAffinityTerm {
  int32_t weight = 0;
  PodAffinityTerm term;
};
// One of a pod's topologySpreadConstraints: the tasks its selector matches (in the pod's
// namespace; matchLabelKeys already folded in) are kept within max_skew of each other across the
// domains of topology_key.
struct TopologySpreadConstraint {
  int32_t max_skew = 1;
  std::string topology_key;
  bool hard = true;  // whenUnsatisfiable DoNotSchedule; false: ScheduleAnyway (a preference)
  LabelSelector selector;
  int32_t min_domains = 1;          // fewer eligible domains than this: the minimum counts as 0
  bool honor_node_affinity = true;  // nodeAffinityPolicy Honor (default): only matching nodes
  bool honor_taints = false;        // nodeTaintsPolicy Honor: only nodes whose taints it tolerates
};
struct PodSpec {
  std::map<std::string, std::string> node_selector;
  std::vector<NodeSelectorTerm> node_affinity_required;  // OR of terms
  std::vector<PreferredNodeTerm> node_affinity_preferred;
  std::vector<PodAffinityTerm> pod_affinity_required;
  std::vector<PodAffinityTerm> pod_anti_affinity_required;
  std::vector<WeightedPodAffinityTerm> pod_affinity_preferred;
  std::vector<WeightedPodAffinityTerm> pod_anti_affinity_preferred;
  std::vector<Toleration> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread;
  // GPU models the pod may run on (openb's gpu_spec "A|B", Volcano's nvidia.com/use-gputype),
  // matched against the node label nvidia.com/gpu.model or its devices' models; empty: any.
  std::vector<std::string> gpu_models;
  // The pod annotation `volcano.sh/preferred-topology: full` (the API layer maps it): a task of
  // several whole GPUs must get them all inside one NVLink domain (gpu-topology plugin).
  bool require_full_nvlink = false;

  // No placement constraint at all: any node with room will do.
  bool Unconstrained() const {
    return node_selector.empty() && node_affinity_required.empty() &&
           node_affinity_preferred.empty() && !HasPodAffinity() && tolerations.empty() &&
           topology_spread.empty() && gpu_models.empty() && !require_full_nvlink;
  }
  bool HasPodAffinity() const {
    return !pod_affinity_required.empty() || !pod_anti_affinity_required.empty() ||
           !pod_affinity_preferred.empty() || !pod_anti_affinity_preferred.empty();
  }
};

struct Task {
  std::string uid;
  std::string name;  // pod name
  std::string ns;
  std::string role;  // the Volcano task spec name
  JobIdx job = kNone;
  ResourceVector request;
  std::shared_ptr<const PodSpec> spec;  // null: no placement constraints
  Labels labels;
  TaskStatus status = TaskStatus::kPending;
  NodeIdx node = kNone;
  NodeIdx nominated_node = kNone;  // where a pipelined task waits
  int32_t priority = 0;
  bool preemptable = true;
  std::string priority_class;
  TimeMs creation_ms = 0;                 // when its pod was created (for latency metrics)
  TimeMs start_ms = 0;                    // when it started running
  TimeMs last_checkpoint_ms = 0;          // last checkpoint the workload reported; 0: never
  std::vector<DeviceAllocation> devices;  // what the task holds of `node`'s GPUs

  bool BestEffort() const { return request.IsZero(); }
};

// Capacity held for a starving job across cycles (see the reservation in actions/allocate).
struct Reservation {
  std::string job_uid;
  std::vector<std::pair<NodeIdx, ResourceVector>> nodes;
  TimeMs since_ms = 0;
};

// A HyperNode (Volcano 1.12 `topology.volcano.sh/v1alpha1`): a network domain of nodes and
// smaller hypernodes. Lower tiers are tighter (tier 1: nodes under one switch). When a snapshot
// has none, model/hypernode.h derives tier-1 hypernodes from node labels.
struct HyperNode {
  std::string name;
  int32_t tier = 1;
  std::vector<NodeIdx> nodes;       // member nodes
  std::vector<int32_t> hypernodes;  // member hypernodes, by index into Snapshot::hypernodes
};

struct Snapshot {
  TimeMs now_ms = 0;
  // Increases whenever capacity may have grown (a task ended, a node joined or was repaired).
  // A job in backoff is retried at once when this moves past the value of its last failure.
  uint64_t capacity_generation = 0;
  std::vector<Node> nodes;
  std::vector<Queue> queues;
  std::vector<Job> jobs;
  std::vector<Task> tasks;
  std::vector<Reservation> reservations;
  std::vector<HyperNode> hypernodes;
};

}  // namespace etna::sched
