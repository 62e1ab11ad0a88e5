#include "bench/cluster_gen.h"

#include <fmt/format.h>

#include "common/rng.h"

namespace etna::bench {

using namespace etna::sched;

Snapshot MakeCluster(const ClusterShape& shape) {
  Rng rng(shape.seed);
  Snapshot s;
  s.now_ms = 1'700'000'000'000;
  s.nodes.reserve(shape.nodes);
  for (int i = 0; i < shape.nodes; ++i) {
    Node n;
    n.name = fmt::format("node-{:05d}", i);
    n.allocatable.Set(kCpu, 128'000);
    n.allocatable.Set(kMemory, int64_t{1} << 40);
    n.allocatable.Set(kGpu, 8'000);
    n.labels["nvidia.com/gpu.model"] = "NVIDIA-H100-80GB-HBM3";
    n.labels["topology.etna.io/switch"] = fmt::format("sw-{}", i / 32);
    for (int g = 0; g < 8; ++g) {
      GpuDevice d;
      d.index = g;
      d.uuid = fmt::format("GPU-{}-{}", i, g);
      d.nvlink_domain = 0;
      n.gpus.push_back(std::move(d));
    }
    s.nodes.push_back(std::move(n));
  }
  for (int q = 0; q < shape.queues; ++q) {
    Queue queue;
    queue.name = fmt::format("queue-{:02d}", q);
    queue.weight = 1 + static_cast<int32_t>(rng.Uniform(4));
    queue.creation_ms = q;
    s.queues.push_back(std::move(queue));
  }
  int64_t total = int64_t{shape.nodes} * shape.tasks_per_node;
  s.tasks.reserve(total);
  int job_id = 0;
  while (static_cast<int64_t>(s.tasks.size()) < total) {
    int64_t left = total - static_cast<int64_t>(s.tasks.size());
    int size = 1 + static_cast<int>(rng.Uniform(shape.max_gang));
    if (size > left) size = static_cast<int>(left);
    Job job;
    job.name = fmt::format("job-{:06d}", job_id);
    job.uid = "uid-" + job.name;
    job.ns = "default";
    job.queue = static_cast<QueueIdx>(rng.Uniform(shape.queues));
    job.min_available = size;
    job.priority = static_cast<int32_t>(rng.Uniform(3)) * 50;
    job.creation_ms = job_id;
    job.phase = PodGroupPhase::kPending;
    int gpus = 1;  // every task asks for one GPU: 10× the tasks is 1.25× the GPUs
    auto spec = std::make_shared<PodSpec>();
    for (int t = 0; t < size; ++t) {
      Task task;
      task.name = fmt::format("{}-worker-{}", job.name, t);
      task.uid = "uid-" + task.name;
      task.ns = "default";
      task.role = "worker";
      task.job = job_id;
      task.priority = job.priority;
      task.spec = spec;
      task.request.Set(kCpu, 4'000 * gpus);
      task.request.Set(kMemory, (int64_t{32} << 30) * gpus);
      task.request.Set(kGpu, 1'000 * gpus);
      job.tasks.push_back(static_cast<TaskIdx>(s.tasks.size()));
      s.tasks.push_back(std::move(task));
    }
    s.jobs.push_back(std::move(job));
    ++job_id;
  }
  return s;
}

}  // namespace etna::bench
