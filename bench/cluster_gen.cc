#include "bench/cluster_gen.h"

#include <fmt/format.h>

#include "common/rng.h"

namespace etna::bench {

using namespace etna::sched;

namespace {

constexpr int kGpusPerNode = 8;

void AddNodes(int count, Snapshot* s) {
  s->nodes.reserve(count);
  for (int i = 0; i < count; ++i) {
    Node n;
    n.name = fmt::format("node-{:05d}", i);
    n.allocatable.Set(kCpu, 128'000);
    n.allocatable.Set(kMemory, int64_t{1} << 40);
    n.allocatable.Set(kGpu, kGpusPerNode * 1'000);
    n.labels["nvidia.com/gpu.model"] = "NVIDIA-H100-80GB-HBM3";
    n.labels["topology.etna.io/switch"] = fmt::format("sw-{}", i / 32);
    for (int g = 0; g < kGpusPerNode; ++g) {
      GpuDevice d;
      d.index = g;
      d.uuid = fmt::format("GPU-{}-{}", i, g);
      d.nvlink_domain = 0;
      n.gpus.push_back(std::move(d));
    }
    s->nodes.push_back(std::move(n));
  }
}

void AddQueues(int count, Rng& rng, Snapshot* s) {
  for (int q = 0; q < count; ++q) {
    Queue queue;
    queue.name = fmt::format("queue-{:02d}", q);
    queue.weight = 1 + static_cast<int32_t>(rng.Uniform(4));
    queue.creation_ms = q;
    s->queues.push_back(std::move(queue));
  }
}

// A job of `size` tasks asking one GPU each (with 4 CPUs and 32 GiB), pending unless the caller
// places its tasks afterwards.
Job& AddOneGpuJob(int size, QueueIdx queue, int32_t priority, Snapshot* s) {
  JobIdx job_id = static_cast<JobIdx>(s->jobs.size());
  Job job;
  job.name = fmt::format("job-{:06d}", job_id);
  job.uid = "uid-" + job.name;
  job.ns = "default";
  job.queue = queue;
  job.min_available = size;
  job.priority = priority;
  job.creation_ms = job_id;
  job.phase = PodGroupPhase::kPending;
  auto spec = std::make_shared<PodSpec>();
  for (int t = 0; t < size; ++t) {
    Task task;
    task.name = fmt::format("{}-worker-{}", job.name, t);
    task.uid = "uid-" + task.name;
    task.ns = "default";
    task.role = "worker";
    task.job = job_id;
    task.priority = priority;
    task.spec = spec;
    task.request.Set(kCpu, 4'000);
    task.request.Set(kMemory, int64_t{32} << 30);
    task.request.Set(kGpu, 1'000);
    job.tasks.push_back(static_cast<TaskIdx>(s->tasks.size()));
    s->tasks.push_back(std::move(task));
  }
  s->jobs.push_back(std::move(job));
  return s->jobs.back();
}

// `nodes` empty nodes and `queues` queues (weights drawn from `rng`), no work yet.
Snapshot EmptyCluster(int nodes, int queues, Rng& rng) {
  Snapshot s;
  s.now_ms = 1'700'000'000'000;
  AddNodes(nodes, &s);
  AddQueues(queues, rng, &s);
  return s;
}

}  // namespace

Snapshot MakeCluster(const ClusterShape& shape) {
  Rng rng(shape.seed);
  Snapshot s = EmptyCluster(shape.nodes, shape.queues, rng);
  int64_t total = int64_t{shape.nodes} * shape.tasks_per_node;
  s.tasks.reserve(total);
  while (static_cast<int64_t>(s.tasks.size()) < total) {
    int64_t left = total - static_cast<int64_t>(s.tasks.size());
    int size = 1 + static_cast<int>(rng.Uniform(shape.max_gang));
    if (size > left) size = static_cast<int>(left);
    // Every task asks for one GPU: 10× the tasks is 1.25× the GPUs.
    auto queue = static_cast<QueueIdx>(rng.Uniform(shape.queues));
    auto priority = static_cast<int32_t>(rng.Uniform(3)) * 50;
    AddOneGpuJob(size, queue, priority, &s);
  }
  return s;
}

Snapshot MakeFullCluster(const FullClusterShape& shape) {
  Rng rng(shape.seed);
  Snapshot s = EmptyCluster(shape.nodes, shape.queues, rng);
  static constexpr int kGangSizes[] = {1, 2, 4, 8};
  for (int n = 0; n < shape.nodes; ++n) {
    int gpu = 0;
    while (gpu < kGpusPerNode) {
      int size = kGangSizes[rng.Uniform(4)];
      if (size > kGpusPerNode - gpu) size = kGpusPerNode - gpu;
      Job& job = AddOneGpuJob(size, static_cast<QueueIdx>(rng.Uniform(shape.queues)), 0, &s);
      job.phase = PodGroupPhase::kRunning;
      TimeMs started = s.now_ms - 60'000 * (1 + static_cast<TimeMs>(rng.Uniform(600)));
      for (TaskIdx t : job.tasks) {
        Task& task = s.tasks[t];
        task.status = TaskStatus::kRunning;
        task.node = static_cast<NodeIdx>(n);
        task.start_ms = started;
        DeviceAllocation d;
        d.gpu = gpu++;
        task.devices.push_back(d);
      }
    }
  }
  if (shape.reclaim) {
    Queue entitled;
    entitled.name = "queue-entitled";
    entitled.weight = 4;
    entitled.creation_ms = shape.queues;
    s.queues.push_back(std::move(entitled));
  }
  for (int p = 0; p < shape.preemptors; ++p) {
    int size = 1 + static_cast<int>(rng.Uniform(kGpusPerNode));
    // Drawn either way, so that the reclaim case has the same preemptor sizes as the preempt one.
    auto queue = static_cast<QueueIdx>(rng.Uniform(shape.queues));
    AddOneGpuJob(size, shape.reclaim ? static_cast<QueueIdx>(shape.queues) : queue, 100, &s);
  }
  return s;
}

}  // namespace etna::bench
