// ClusterBuilder: a fluent way to write a snapshot in a test.
//
//   ClusterBuilder b;
//   b.Node("n1").Resources("cpu=64,memory=512Gi").Gpus(8, "H100", /*nvlink_domains=*/1);
//   b.Queue("q1").Weight(2).Capability("nvidia.com/gpu=8");
//   b.Job("j1").InQueue("q1").MinAvailable(2).Priority(100)
//       .Tasks("worker", 2, "cpu=4,nvidia.com/gpu=1");
//   b.Job("j0").InQueue("q1").Running("worker", 1, "nvidia.com/gpu=4", "n1");
//   Snapshot snap = b.Build();
//
// Names are resolved at Build(); a typo fails the test with the unknown name. Tests also get
// helpers to run a cycle with a configuration string and to read the decision by name.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sched/framework/conf.h"
#include "sched/framework/decision.h"
#include "sched/model/snapshot.h"

namespace etna::sched::testkit {

// "cpu=4,memory=16Gi,nvidia.com/gpu=1" → ResourceVector (aborts the test on a typo).
ResourceVector Res(std::string_view spec);
ResourceLimit Limit(std::string_view spec);

class ClusterBuilder;

class NodeBuilder {
 public:
  NodeBuilder& Resources(std::string_view spec);
  // Adds `count` healthy GPUs of `model` split evenly into `nvlink_domains` domains, and sets
  // the node's nvidia.com/gpu allocatable.
  NodeBuilder& Gpus(int count, std::string_view model = "H100", int nvlink_domains = 1);
  NodeBuilder& Label(std::string key, std::string value);
  NodeBuilder& Taint(std::string key, std::string value, Taint::Effect effect);
  NodeBuilder& NotReady();
  NodeBuilder& Cordoned();
  NodeBuilder& UnhealthyGpu(int index);
  // Partitions GPU `gpu` into MIG instances of `profiles` (validated for its model) and
  // advertises nvidia.com/mig-<profile> counts instead of the whole GPU (mixed strategy).
  NodeBuilder& MigLayout(int gpu, std::vector<std::string> profiles);
  // Advertises Volcano's vGPU resources (volcano.sh/vgpu-number = split × whole GPUs,
  // vgpu-memory, vgpu-cores) at Build(), from the final device list.
  NodeBuilder& Vgpu(int split = 10);
  // Advertises the legacy volcano.sh/gpu-memory share resource at Build().
  NodeBuilder& GpuMemoryShare();
  Node& node() { return node_; }

 private:
  friend class ClusterBuilder;
  Node node_;
  int vgpu_split_ = 0;
  bool legacy_share_ = false;
};

class QueueBuilder {
 public:
  QueueBuilder& Weight(int32_t w);
  QueueBuilder& Capability(std::string_view spec);
  QueueBuilder& Guarantee(std::string_view spec);
  QueueBuilder& Deserved(std::string_view spec);
  QueueBuilder& Priority(int32_t p);
  QueueBuilder& Reclaimable(bool r);
  QueueBuilder& State(QueueState s);
  QueueBuilder& Parent(std::string parent);
  // Outside its time windows this cycle, the next one opening at `next_open_ms` ("Mon 09:00");
  // `suspend`: spec.timePolicyAction Suspend.
  QueueBuilder& OutsideWindow(TimeMs next_open_ms, std::string next_open, bool suspend = false);
  Queue& queue() { return queue_; }

 private:
  friend class ClusterBuilder;
  Queue queue_;
  std::string parent_;
};

class JobBuilder {
 public:
  JobBuilder& InQueue(std::string queue);
  JobBuilder& MinAvailable(int32_t n);
  JobBuilder& MinTaskMember(std::string role, int32_t n);
  JobBuilder& MinResources(std::string_view spec);
  JobBuilder& Priority(int32_t p);
  JobBuilder& Phase(PodGroupPhase p);
  JobBuilder& CreatedAt(TimeMs t);
  JobBuilder& RunningEstimate(TimeMs ms);
  JobBuilder& SlaWaiting(TimeMs ms);
  // What evictions already took from the job in its current run (earlier cycles).
  JobBuilder& EvictedInRun(std::string_view spec);
  JobBuilder& WithBackoff(Backoff b);
  // Pending tasks `<job>-<role>-<i>`; `spec` is shared by them (may be null).
  JobBuilder& Tasks(std::string role, int count, std::string_view request,
                    std::shared_ptr<PodSpec> spec = nullptr);
  // Tasks already running on `node` (started at `start_ms`); GPUs get consecutive free devices.
  JobBuilder& Running(std::string role, int count, std::string_view request, std::string node,
                      TimeMs start_ms = 0);
  JobBuilder& Succeeded(std::string role, int count, std::string_view request);
  // Pending vGPU tasks: `number` devices, each with `memory_mib` MiB (0: omitted) and `cores`
  // % of SMs (0: omitted), plus `extra` ("cpu=1").
  JobBuilder& VgpuTasks(std::string role, int count, int number, int64_t memory_mib, int cores,
                        std::string_view extra = "");
  // The devices the last added (running) task holds.
  JobBuilder& LastTaskDevices(std::vector<DeviceAllocation> devices);
  // Adjusts the last added task.
  JobBuilder& LastTaskPriority(int32_t p);
  JobBuilder& LastTaskPreemptable(bool p);
  JobBuilder& LastTaskLabels(Labels labels);
  JobBuilder& LastTaskCheckpoint(TimeMs t);
  JobBuilder& LastTaskPriorityClass(std::string pc);
  JobBuilder& Namespace(std::string ns);
  Job& job() { return job_; }

 private:
  friend class ClusterBuilder;
  struct PendingTask {
    Task task;
    std::string node;
  };
  Job job_;
  std::string queue_ = "default";
  bool min_set_ = false;
  std::vector<PendingTask> tasks_;
};

class ClusterBuilder {
 public:
  ClusterBuilder();
  NodeBuilder& Node(std::string name);
  QueueBuilder& Queue(std::string name);
  JobBuilder& Job(std::string name);
  ClusterBuilder& Now(TimeMs t);
  ClusterBuilder& Generation(uint64_t g);
  Snapshot Build() const;

 private:
  std::deque<NodeBuilder> nodes_;
  std::deque<QueueBuilder> queues_;
  std::deque<JobBuilder> jobs_;
  TimeMs now_ = 1'700'000'000'000;
  uint64_t generation_ = 0;
};

// Parses a configuration (failing the test on error).
SchedulerConf Conf(std::string_view yaml);
// Runs one cycle with the built-ins, or with `registry` (failing the test on error).
Decision Schedule(const Snapshot& snapshot, std::string_view conf_yaml);
Decision ScheduleWith(const Snapshot& snapshot, std::string_view conf_yaml,
                      const Registry& registry);

// pod name → node name of every bind.
std::map<std::string, std::string> BindMap(const Decision& d);
// Pod names evicted, sorted.
// The smallest configuration most unit tests schedule with: allocate, priority and gang.
inline constexpr char kAllocatePriorityGangConf[] = R"(
actions: "allocate"
tiers:
- plugins:
  - name: priority
  - name: gang
)";

std::vector<std::string> Evicted(const Decision& d);
// Pod name → nominated node.
std::map<std::string, std::string> NominationMap(const Decision& d);
// The update for a job by name, or null.
const JobUpdate* FindJob(const Decision& d, const Snapshot& s, std::string_view job_name);

}  // namespace etna::sched::testkit
