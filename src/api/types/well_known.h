// The labels and annotations the parts of etna use to talk to each other through the API
// objects, in one place: what the scheduler writes when it binds, what the agent reads to run a
// pod and writes when it registers its node, what the job controller puts on the pods it makes.
// Volcano's own keys keep Volcano's spelling so that Volcano's users and tools recognise them.
#pragma once

namespace etna::api::types {

// ---- written by the scheduler on the pod when it binds (pods/binding metadata.annotations) ----
// Device indices on the node, comma-separated in allocation order: "0,1".
// A scheduler's Lease in kube-system says which schedulerNames it serves, comma-separated, so
// that a pod no running scheduler serves can be told (controllers' scheduler-names check).
inline constexpr char kSchedulerNamesAnnotation[] = "etna.io/scheduler-names";
inline constexpr char kSchedulerLeaseNamespace[] = "kube-system";
inline constexpr char kSchedulerLeasePrefix[] = "etna-scheduler.";
inline constexpr char kGpuIdsAnnotation[] = "etna.io/gpu-ids";
// The same devices' UUIDs, comma-separated: what NVIDIA_VISIBLE_DEVICES gets.
inline constexpr char kGpuUuidsAnnotation[] = "etna.io/gpu-uuids";
// A share of a device (vGPU / MPS): framebuffer MiB and SM percentage per device; absent for
// whole GPUs.
inline constexpr char kGpuMemoryMibAnnotation[] = "etna.io/gpu-memory-mib";
inline constexpr char kGpuCoresPercentAnnotation[] = "etna.io/gpu-cores-percent";
// MIG instances given to the pod, comma-separated "<gpu index>:<profile>:<instance id>".
inline constexpr char kMigInstancesAnnotation[] = "etna.io/mig-instances";
// The model of the devices the bind gave (their GPUs' model on the node), so that accounting
// (api/types/pod_run.h) knows it after the node is gone.
inline constexpr char kGpuModelAnnotation[] = "etna.io/gpu-model";
// Volcano's annotation that a pod is bound to a PodGroup.
inline constexpr char kGroupNameAnnotation[] = "scheduling.k8s.io/group-name";

// ---- written by the agent on its Node ----
// The node's GPU devices as a JSON list (client/node_gpus.h encodes and decodes it).
inline constexpr char kNodeGpusAnnotation[] = "etna.io/gpus";
inline constexpr char kGpuModelLabel[] = "nvidia.com/gpu.model";
inline constexpr char kGpuCountLabel[] = "nvidia.com/gpu.count";
inline constexpr char kGpuMemoryLabel[] = "nvidia.com/gpu.memory";  // MiB per device
inline constexpr char kMigCapableLabel[] = "nvidia.com/mig.capable";
inline constexpr char kSwitchLabel[] = "topology.etna.io/switch";
inline constexpr char kHostnameLabel[] = "kubernetes.io/hostname";
inline constexpr char kOsLabel[] = "kubernetes.io/os";
inline constexpr char kArchLabel[] = "kubernetes.io/arch";
inline constexpr char kBetaOsLabel[] = "beta.kubernetes.io/os";
inline constexpr char kBetaArchLabel[] = "beta.kubernetes.io/arch";
// The Kubernetes version etna speaks: /version's gitVersion and the agent's kubeletVersion.
inline constexpr char kKubernetesGitVersion[] = "v1.32.0-etna";
// The namespace of node Leases, as in Kubernetes.
inline constexpr char kNodeLeaseNamespace[] = "kube-node-lease";

// ---- written by the job controller on the pods of a Volcano Job ----
inline constexpr char kJobNameLabel[] = "volcano.sh/job-name";
inline constexpr char kJobNamespaceLabel[] = "volcano.sh/job-namespace";
inline constexpr char kQueueNameLabel[] = "volcano.sh/queue-name";
inline constexpr char kTaskSpecLabel[] = "volcano.sh/task-spec";
inline constexpr char kTaskIndexLabel[] = "volcano.sh/task-index";
inline constexpr char kJobVersionLabel[] = "volcano.sh/job-version";
inline constexpr char kJobRetryCountLabel[] = "volcano.sh/job-retry-count";
// The pod's index within its task, as an annotation too (the seed's env fieldRef reads it).
inline constexpr char kTaskSpecIndexAnnotation[] = "volcano.sh/task-spec-index";
inline constexpr char kTaskSpecAnnotation[] = "volcano.sh/task-spec";
inline constexpr char kJobNameAnnotation[] = "volcano.sh/job-name";
inline constexpr char kJobVersionAnnotation[] = "volcano.sh/job-version";
inline constexpr char kPreemptableAnnotation[] = "volcano.sh/preemptable";
// Volcano's sla plugin: the longest a job may wait before it is served first (a Go duration),
// on the Job and so on its PodGroup (the job controller copies the job's annotations).
inline constexpr char kSlaWaitingTimeAnnotation[] = "volcano.sh/sla-waiting-time";
inline constexpr char kPodGroupPrefix[] = "podgroup-";

// ---- read by admission and the podgroup controller: a workload's queue and kind ----
// Volcano's pod annotation naming the queue of a pod's own PodGroup; admission writes the queue
// it routed a bare pod to here (src/api/admission/queue_routing.cc).
inline constexpr char kQueueNameAnnotation[] = "scheduling.volcano.sh/queue-name";
// Volcano's pod annotation giving the gang size of the PodGroup its owner's pods share (a
// batch/v1 Job's template carries it: all its pods, or this many, start together).
inline constexpr char kGroupMinMemberAnnotation[] = "scheduling.volcano.sh/group-min-member";
// The seed's label naming a workload's queue (`queue: inference-service`), honoured when the
// queue exists and no queue is named explicitly.
inline constexpr char kQueueLabel[] = "queue";
// Marks a PodGroup as an inference workload (sched::Job::Kind::kInference); the podgroup
// controller sets it on the group of a pod a ReplicaSet or Deployment owns.
inline constexpr char kWorkloadLabel[] = "etna.io/workload";
inline constexpr char kInferenceWorkload[] = "inference";

// ---- written by the scheduler: what configuration is in force ----
// The ConfigMap volcano-system/<kConfigReportName> key <kConfigReportKey> holds JSON:
// {"source", "actions", "tiers": [[{"name", "arguments"}]], "seedConfigMap",
//  "keys": [{"key", "inForce", "detail"}]}; `etna explain config` prints it.
inline constexpr char kConfigReportNamespace[] = "volcano-system";
inline constexpr char kConfigReportName[] = "etna-scheduler-config-report";
inline constexpr char kConfigReportKey[] = "report.json";

// ---- written by the workload (or its launcher) on its own pod ----
// When the task last saved a checkpoint, RFC 3339 ("2026-01-02T15:04:05Z"). The scheduler's
// least-work-lost victim order (preemption.victimOrder) evicts the task that loses least first;
// admission refuses a value that is not such a time.
inline constexpr char kLastCheckpointAnnotation[] = "etna.io/last-checkpoint";

// ---- written by the scheduler on the PodGroup's status ----
// What evictions took from the group in its current run, from its first eviction until every
// member runs again: {"since": <RFC 3339>, "resources": <resource list>}. The per-job preemption
// limit counts it across cycles and scheduler restarts.
inline constexpr char kEvictedInRunStatusField[] = "evictedInRun";

// ---- pod conditions and reasons the parts set ----
// Set by the scheduler on a victim before it evicts (with reason Preempted or Reclaimed), as
// Kubernetes' DisruptionTarget.
inline constexpr char kDisruptionTargetCondition[] = "DisruptionTarget";
// Set by the node controller on pods of a node whose lease lapsed.
inline constexpr char kNodeLostReason[] = "NodeLost";
// Set by an agent on the pods it stopped because it could not renew its node's Lease (its fence:
// agent/agent.h); a pod annotated etna.io/survive-partition: "true" keeps running instead.
inline constexpr char kNodeFencedReason[] = "NodeFenced";
inline constexpr char kSurvivePartitionAnnotation[] = "etna.io/survive-partition";

}  // namespace etna::api::types
