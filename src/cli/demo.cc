// `etna demo`: one scheduling cycle over the default dev cluster (4 × 8 H100 with NVSwitch,
// 2 × 4 A100-80GB, 2 × 2 T4), the seed's queues and its training job (a chief and three
// workers with one GPU each), printing what the scheduler decided and why.
#include <fmt/format.h>

#include <cstdio>

#include "sched/framework/conf.h"
#include "sched/framework/cycle.h"
#include "sched/framework/registry.h"

namespace etna::cli {
namespace {

using namespace etna::sched;

void AddNodes(Snapshot& s, const char* prefix, int count, int gpus, const char* model) {
  for (int i = 0; i < count; ++i) {
    Node n;
    n.name = fmt::format("{}-{}", prefix, i);
    n.allocatable.Set(kCpu, 96'000);
    n.allocatable.Set(kMemory, int64_t{768} << 30);
    n.allocatable.Set(kGpu, int64_t{gpus} * 1000);
    n.labels["nvidia.com/gpu.model"] = model;
    for (int g = 0; g < gpus; ++g) {
      GpuDevice d;
      d.index = g;
      d.uuid = fmt::format("GPU-{}-{}", n.name, g);
      d.model = model;
      d.nvlink_domain = 0;
      n.gpus.push_back(d);
    }
    s.nodes.push_back(std::move(n));
  }
}

QueueIdx AddQueue(Snapshot& s, const char* name, int weight, int64_t gpu_cap, int priority) {
  Queue q;
  q.name = name;
  q.weight = weight;
  q.capability.Set(kGpu, gpu_cap * 1000);
  q.priority = priority;
  s.queues.push_back(q);
  return static_cast<QueueIdx>(s.queues.size() - 1);
}

}  // namespace

int RunDemo(int, char**) {
  Snapshot s;
  s.now_ms = 1'700'000'000'000;
  AddNodes(s, "h100", 4, 8, "NVIDIA-H100-80GB-HBM3");
  AddNodes(s, "a100", 2, 4, "NVIDIA-A100-SXM4-80GB");
  AddNodes(s, "t4", 2, 2, "Tesla-T4");
  AddQueue(s, "default", 1, 100, 0);
  QueueIdx training = AddQueue(s, "production-training", 40, 80, 100);
  AddQueue(s, "experiment-training", 30, 40, 80);

  Job job;
  job.uid = "uid-bert-finetune-training";
  job.name = "bert-finetune-training";
  job.ns = "default";
  job.queue = training;
  job.min_available = 4;
  job.priority = 100;
  job.phase = PodGroupPhase::kInqueue;
  for (int i = 0; i < 4; ++i) {
    Task t;
    t.role = i == 0 ? "chief" : "worker";
    t.name = fmt::format("{}-{}-{}", job.name, t.role, i == 0 ? 0 : i - 1);
    t.uid = "uid-" + t.name;
    t.ns = job.ns;
    t.job = 0;
    t.priority = job.priority;
    t.request.Set(kCpu, 8'000);
    t.request.Set(kMemory, int64_t{32} << 30);
    t.request.Set(kGpu, 1'000);
    job.tasks.push_back(static_cast<TaskIdx>(s.tasks.size()));
    s.tasks.push_back(std::move(t));
  }
  s.jobs.push_back(job);

  // A job that cannot run anywhere here, to show what a person is told.
  Job big = job;
  big.uid = "uid-llm-pretrain";
  big.name = "llm-pretrain";
  big.min_available = 2;
  big.priority = 50;
  big.tasks.clear();
  for (int i = 0; i < 2; ++i) {
    Task t = s.tasks[0];
    t.role = "worker";
    t.name = fmt::format("llm-pretrain-worker-{}", i);
    t.uid = "uid-" + t.name;
    t.job = 1;
    t.priority = big.priority;
    t.request.Set(kGpu, 16'000);
    big.tasks.push_back(static_cast<TaskIdx>(s.tasks.size()));
    s.tasks.push_back(std::move(t));
  }
  s.jobs.push_back(big);

  auto conf = ParseSchedulerConf(DefaultSchedulerConfYaml(), BuiltinRegistry());
  if (!conf.ok()) {
    std::fprintf(stderr, "etna demo: %s\n", conf.status().ToString().c_str());
    return 1;
  }
  auto d = RunCycle(s, *conf);
  if (!d.ok()) {
    std::fprintf(stderr, "etna demo: %s\n", d.status().ToString().c_str());
    return 1;
  }
  std::printf("cluster: %zu nodes; jobs %s (gang of %d) and %s (2 × 16 GPUs) in queue %s\n",
              s.nodes.size(), job.name.c_str(), job.min_available, big.name.c_str(),
              s.queues[training].name.c_str());
  for (const auto& b : d->binds) {
    std::string gpus;
    for (const auto& u : b.gpu_uuids) gpus += (gpus.empty() ? "" : ",") + u;
    std::printf("bind  %-36s -> %-8s GPUs %s\n", b.pod_name.c_str(), b.node.c_str(), gpus.c_str());
  }
  for (const auto& u : d->jobs) {
    std::printf("job   %-36s %s %s %s\n", s.jobs[u.job].name.c_str(), PodGroupPhaseName(u.phase),
                u.condition.c_str(), u.message.c_str());
  }
  return 0;
}

}  // namespace etna::cli
