#include "sched/testing/cluster_builder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "sched/devices/inventory.h"
#include "sched/framework/cycle.h"
#include "sched/framework/registry.h"

namespace etna::sched::testkit {
namespace {

[[noreturn]] void Die(const std::string& message) {
  ADD_FAILURE() << message;
  throw std::runtime_error(message);
}

std::vector<std::pair<std::string, std::string>> SplitSpec(std::string_view spec) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start < spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    std::string_view item = spec.substr(start, comma - start);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos) Die(fmt::format("bad resource spec \"{}\"", spec));
    out.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
    start = comma + 1;
  }
  return out;
}

int64_t Amount(ResourceId id, const std::string& text) {
  auto v = ParseQuantity(text, ResourceNames::Global().Unit(id));
  if (!v.ok()) Die(v.status().ToString());
  return *v;
}

}  // namespace

ResourceVector Res(std::string_view spec) {
  ResourceVector v;
  for (const auto& [name, amount] : SplitSpec(spec)) {
    ResourceId id = ResourceNames::Global().Intern(name).value();
    v.Set(id, Amount(id, amount));
  }
  return v;
}

ResourceLimit Limit(std::string_view spec) {
  ResourceLimit l;
  for (const auto& [name, amount] : SplitSpec(spec)) {
    ResourceId id = ResourceNames::Global().Intern(name).value();
    l.Set(id, Amount(id, amount));
  }
  return l;
}

NodeBuilder& NodeBuilder::Resources(std::string_view spec) {
  ResourceVector r = Res(spec);
  for (int i = 0; i < r.dims(); ++i) {
    if (r.Get(i) != 0) node_.allocatable.Set(i, r.Get(i));
  }
  return *this;
}

NodeBuilder& NodeBuilder::Gpus(int count, std::string_view model, int nvlink_domains) {
  node_.gpus.clear();
  int per_domain = std::max(1, count / std::max(1, nvlink_domains));
  for (int i = 0; i < count; ++i) {
    GpuDevice g;
    g.index = i;
    g.uuid = fmt::format("GPU-{}-{}", node_.name, i);
    g.model = std::string(model);
    g.memory_mib = 81920;
    g.nvlink_domain = nvlink_domains > 0 ? i / per_domain : -1;
    g.numa_node = i < count / 2 ? 0 : 1;
    node_.gpus.push_back(g);
  }
  node_.allocatable.Set(kGpu, int64_t{count} * 1000);
  node_.labels["nvidia.com/gpu.model"] = std::string(model);
  return *this;
}

NodeBuilder& NodeBuilder::Label(std::string key, std::string value) {
  node_.labels[std::move(key)] = std::move(value);
  return *this;
}

NodeBuilder& NodeBuilder::Taint(std::string key, std::string value, Taint::Effect effect) {
  node_.taints.push_back({std::move(key), std::move(value), effect});
  return *this;
}

NodeBuilder& NodeBuilder::NotReady() {
  node_.ready = false;
  return *this;
}

NodeBuilder& NodeBuilder::Cordoned() {
  node_.unschedulable = true;
  return *this;
}

NodeBuilder& NodeBuilder::UnhealthyGpu(int index) {
  node_.gpus.at(index).healthy = false;
  if (node_.gpus.at(index).mig.empty()) {
    node_.allocatable.Add(kGpu, -1000);
  } else if (Status st = devices::AdvertiseDevices(node_.gpus, {}, &node_.allocatable); !st.ok()) {
    Die(st.ToString());
  }
  return *this;
}

NodeBuilder& NodeBuilder::MigLayout(int gpu, std::vector<std::string> profiles) {
  GpuDevice& g = node_.gpus.at(gpu);
  auto instances = devices::MakeMigInstances(g.model, profiles);
  if (!instances.ok()) Die(instances.status().ToString());
  g.mig = std::move(instances).value();
  if (Status st = devices::AdvertiseDevices(node_.gpus, {}, &node_.allocatable); !st.ok()) {
    Die(st.ToString());
  }
  return *this;
}

NodeBuilder& NodeBuilder::Vgpu(int split) {
  vgpu_split_ = split;
  return *this;
}

NodeBuilder& NodeBuilder::GpuMemoryShare() {
  legacy_share_ = true;
  return *this;
}

QueueBuilder& QueueBuilder::Weight(int32_t w) {
  queue_.weight = w;
  return *this;
}
QueueBuilder& QueueBuilder::Capability(std::string_view spec) {
  queue_.capability = Limit(spec);
  return *this;
}
QueueBuilder& QueueBuilder::Guarantee(std::string_view spec) {
  queue_.guarantee = Limit(spec);
  return *this;
}
QueueBuilder& QueueBuilder::Deserved(std::string_view spec) {
  queue_.deserved = Limit(spec);
  return *this;
}
QueueBuilder& QueueBuilder::Priority(int32_t p) {
  queue_.priority = p;
  return *this;
}
QueueBuilder& QueueBuilder::Reclaimable(bool r) {
  queue_.reclaimable = r;
  return *this;
}
QueueBuilder& QueueBuilder::State(QueueState s) {
  queue_.state = s;
  return *this;
}
QueueBuilder& QueueBuilder::Parent(std::string parent) {
  parent_ = std::move(parent);
  return *this;
}

QueueBuilder& QueueBuilder::OutsideWindow(TimeMs next_open_ms, std::string next_open,
                                          bool suspend) {
  queue_.window = {true, next_open_ms, std::move(next_open), suspend};
  return *this;
}

JobBuilder& JobBuilder::InQueue(std::string queue) {
  queue_ = std::move(queue);
  return *this;
}
JobBuilder& JobBuilder::MinAvailable(int32_t n) {
  job_.min_available = n;
  min_set_ = true;
  return *this;
}
JobBuilder& JobBuilder::MinTaskMember(std::string role, int32_t n) {
  job_.min_task_member[std::move(role)] = n;
  return *this;
}
JobBuilder& JobBuilder::MinResources(std::string_view spec) {
  job_.min_resources = Res(spec);
  return *this;
}
JobBuilder& JobBuilder::Priority(int32_t p) {
  job_.priority = p;
  for (auto& pt : tasks_) pt.task.priority = p;
  return *this;
}
JobBuilder& JobBuilder::Phase(PodGroupPhase p) {
  job_.phase = p;
  return *this;
}
JobBuilder& JobBuilder::CreatedAt(TimeMs t) {
  job_.creation_ms = t;
  return *this;
}
JobBuilder& JobBuilder::RunningEstimate(TimeMs ms) {
  job_.running_estimate_ms = ms;
  return *this;
}
JobBuilder& JobBuilder::EvictedInRun(std::string_view spec) {
  job_.evicted_in_run = Res(spec);
  return *this;
}
JobBuilder& JobBuilder::SlaWaiting(TimeMs ms) {
  job_.sla_waiting_ms = ms;
  return *this;
}
JobBuilder& JobBuilder::WithBackoff(Backoff b) {
  job_.backoff = b;
  return *this;
}
JobBuilder& JobBuilder::Namespace(std::string ns) {
  job_.ns = ns;
  for (auto& pt : tasks_) pt.task.ns = ns;
  return *this;
}

JobBuilder& JobBuilder::Tasks(std::string role, int count, std::string_view request,
                              std::shared_ptr<PodSpec> spec) {
  ResourceVector r = Res(request);
  int base = 0;
  for (const auto& pt : tasks_) base += pt.task.role == role;
  for (int i = 0; i < count; ++i) {
    PendingTask pt;
    pt.task.role = role;
    pt.task.name = fmt::format("{}-{}-{}", job_.name, role, base + i);
    pt.task.uid = "uid-" + pt.task.name;
    pt.task.ns = job_.ns;
    pt.task.request = r;
    pt.task.spec = spec;
    pt.task.priority = job_.priority;
    tasks_.push_back(std::move(pt));
  }
  return *this;
}

JobBuilder& JobBuilder::Running(std::string role, int count, std::string_view request,
                                std::string node, TimeMs start_ms) {
  Tasks(role, count, request);
  for (size_t i = tasks_.size() - count; i < tasks_.size(); ++i) {
    tasks_[i].task.status = TaskStatus::kRunning;
    tasks_[i].task.start_ms = start_ms;
    tasks_[i].node = node;
  }
  return *this;
}

JobBuilder& JobBuilder::Succeeded(std::string role, int count, std::string_view request) {
  Tasks(role, count, request);
  for (size_t i = tasks_.size() - count; i < tasks_.size(); ++i) {
    tasks_[i].task.status = TaskStatus::kSucceeded;
  }
  return *this;
}

JobBuilder& JobBuilder::VgpuTasks(std::string role, int count, int number, int64_t memory_mib,
                                  int cores, std::string_view extra) {
  std::string spec = fmt::format("volcano.sh/vgpu-number={}", number);
  if (memory_mib > 0) spec += fmt::format(",volcano.sh/vgpu-memory={}", memory_mib);
  if (cores > 0) spec += fmt::format(",volcano.sh/vgpu-cores={}", cores);
  if (!extra.empty()) spec += "," + std::string(extra);
  return Tasks(std::move(role), count, spec);
}

JobBuilder& JobBuilder::LastTaskDevices(std::vector<DeviceAllocation> devices) {
  tasks_.back().task.devices = std::move(devices);
  return *this;
}

JobBuilder& JobBuilder::LastTaskPriority(int32_t p) {
  tasks_.back().task.priority = p;
  return *this;
}
JobBuilder& JobBuilder::LastTaskPreemptable(bool p) {
  tasks_.back().task.preemptable = p;
  return *this;
}
JobBuilder& JobBuilder::LastTaskLabels(Labels labels) {
  tasks_.back().task.labels = std::move(labels);
  return *this;
}
JobBuilder& JobBuilder::LastTaskCheckpoint(TimeMs t) {
  tasks_.back().task.last_checkpoint_ms = t;
  return *this;
}
JobBuilder& JobBuilder::LastTaskPriorityClass(std::string pc) {
  tasks_.back().task.priority_class = std::move(pc);
  return *this;
}

ClusterBuilder::ClusterBuilder() { Queue("default"); }

NodeBuilder& ClusterBuilder::Node(std::string name) {
  nodes_.emplace_back();
  nodes_.back().node_.name = std::move(name);
  return nodes_.back();
}

QueueBuilder& ClusterBuilder::Queue(std::string name) {
  for (auto& q : queues_) {
    if (q.queue_.name == name) return q;
  }
  queues_.emplace_back();
  queues_.back().queue_.name = std::move(name);
  queues_.back().queue_.creation_ms = static_cast<TimeMs>(queues_.size());
  return queues_.back();
}

JobBuilder& ClusterBuilder::Job(std::string name) {
  jobs_.emplace_back();
  JobBuilder& j = jobs_.back();
  j.job_.name = name;
  j.job_.uid = "uid-" + name;
  j.job_.ns = "default";
  j.job_.creation_ms = static_cast<TimeMs>(jobs_.size());
  j.job_.phase = PodGroupPhase::kInqueue;
  return j;
}

ClusterBuilder& ClusterBuilder::Now(TimeMs t) {
  now_ = t;
  return *this;
}

ClusterBuilder& ClusterBuilder::Generation(uint64_t g) {
  generation_ = g;
  return *this;
}

Snapshot ClusterBuilder::Build() const {
  Snapshot s;
  s.now_ms = now_;
  s.capacity_generation = generation_;
  std::map<std::string, NodeIdx> node_idx;
  for (const auto& nb : nodes_) {
    node_idx[nb.node_.name] = static_cast<NodeIdx>(s.nodes.size());
    s.nodes.push_back(nb.node_);
    if (nb.vgpu_split_ > 0 || nb.legacy_share_) {
      devices::AdvertiseOptions options{nb.vgpu_split_, nb.legacy_share_};
      sched::Node& n = s.nodes.back();
      if (Status st = devices::AdvertiseDevices(n.gpus, options, &n.allocatable); !st.ok()) {
        Die(st.ToString());
      }
    }
  }
  std::map<std::string, QueueIdx> queue_idx;
  for (const auto& qb : queues_) {
    queue_idx[qb.queue_.name] = static_cast<QueueIdx>(s.queues.size());
    s.queues.push_back(qb.queue_);
  }
  for (size_t i = 0; i < queues_.size(); ++i) {
    const std::string& parent = queues_[i].parent_;
    if (parent.empty()) continue;
    if (!queue_idx.count(parent)) Die("unknown parent queue " + parent);
    s.queues[i].parent = queue_idx[parent];
  }
  for (const auto& jb : jobs_) {
    if (!queue_idx.count(jb.queue_)) Die("unknown queue " + jb.queue_);
    sched::Job job = jb.job_;
    job.queue = queue_idx[jb.queue_];
    if (!jb.min_set_) job.min_available = static_cast<int32_t>(jb.tasks_.size());
    JobIdx ji = static_cast<JobIdx>(s.jobs.size());
    for (const auto& pt : jb.tasks_) {
      Task t = pt.task;
      t.job = ji;
      if (!pt.node.empty()) {
        if (!node_idx.count(pt.node)) Die("unknown node " + pt.node);
        t.node = node_idx[pt.node];
        // Take consecutive free devices for running GPU tasks.
        int64_t whole = t.request.Get(kGpu) / 1000;
        sched::Node& n = s.nodes[t.node];
        for (auto& g : n.gpus) {
          if (static_cast<int64_t>(t.devices.size()) >= whole) break;
          bool taken = false;
          for (const auto& other : s.tasks) {
            if (other.node != t.node) continue;
            for (const auto& d : other.devices) taken |= d.gpu == g.index;
          }
          if (!taken && g.healthy && g.mig.empty()) {
            DeviceAllocation d;
            d.gpu = g.index;
            t.devices.push_back(d);
          }
        }
      }
      job.tasks.push_back(static_cast<TaskIdx>(s.tasks.size()));
      s.tasks.push_back(std::move(t));
    }
    bool any_running = false;
    for (const auto& pt : jb.tasks_) any_running |= pt.task.status == TaskStatus::kRunning;
    if (any_running && job.phase == PodGroupPhase::kInqueue) job.phase = PodGroupPhase::kRunning;
    s.jobs.push_back(std::move(job));
  }
  return s;
}

SchedulerConf Conf(std::string_view yaml) {
  auto conf = ParseSchedulerConf(yaml, BuiltinRegistry());
  if (!conf.ok()) Die(conf.status().ToString());
  return *conf;
}

Decision Schedule(const Snapshot& snapshot, std::string_view conf_yaml) {
  return ScheduleWith(snapshot, conf_yaml, BuiltinRegistry());
}

Decision ScheduleWith(const Snapshot& snapshot, std::string_view conf_yaml,
                      const Registry& registry) {
  auto conf = ParseSchedulerConf(conf_yaml, registry);
  if (!conf.ok()) Die(conf.status().ToString());
  auto d = RunCycle(snapshot, *conf, registry);
  if (!d.ok()) Die(d.status().ToString());
  return std::move(d).value();
}

std::map<std::string, std::string> BindMap(const Decision& d) {
  std::map<std::string, std::string> m;
  for (const auto& b : d.binds) m[b.pod_name] = b.node;
  return m;
}

std::vector<std::string> Evicted(const Decision& d) {
  std::vector<std::string> v;
  for (const auto& e : d.evictions) v.push_back(e.pod_name);
  std::sort(v.begin(), v.end());
  return v;
}

std::map<std::string, std::string> NominationMap(const Decision& d) {
  std::map<std::string, std::string> m;
  for (const auto& n : d.nominations) {
    m[n.task_uid.substr(4)] = n.node;  // uid is "uid-<pod name>"
  }
  return m;
}

const JobUpdate* FindJob(const Decision& d, const Snapshot& s, std::string_view job_name) {
  for (const auto& u : d.jobs) {
    if (s.jobs[u.job].name == job_name) return &u;
  }
  return nullptr;
}

}  // namespace etna::sched::testkit
