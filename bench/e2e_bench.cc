// End-to-end benchmark through the real front door (`make bench-e2e`): starts `etna server`
// (SQLite, TLS), `etna scheduler` and `etna controllers` as separate processes in a temp dir,
// registers `--nodes` simulated nodes of 8 H100s (Node objects and Leases kept alive as agents
// would, without running processes), then submits from this process, over HTTPS with the admin
// token from 16 client threads, the workload of bench/volcano_workload.h as Volcano Jobs (the
// same jobs scripts/bench-slurm.sh gives Slurm). A pod watch records when each pod is bound.
// The run ends when every GPU is bound, or when nothing was bound for --quiet-s seconds after
// the last submit. Prints exactly one line:
//   BENCH e2e nodes=<n> jobs=<n> pods=<n> submit_s=<x> fill_s=<x> gpus_allocated=<n>
//             jobs_per_s=<n> bind_p50_ms=<x> bind_p99_ms=<x> server_rss_mb=<n>
//             scheduler_rss_mb=<n> controllers_rss_mb=<n>
// submit_s: first submit to last create answered. fill_s: first submit to the last bind.
// jobs_per_s: jobs with every pod bound / fill_s. bind_*: per pod, its Job's create sent to the
// pod seen bound on the watch. gpus_allocated: GPUs of the pods bound at the end (a bound pod
// deleted again, e.g. on a node whose lease lapsed, no longer counts; stderr says how many).
// *_rss_mb: each process's peak resident memory.
//
// Usage: e2e_bench [--etna build/src/cli/etna] [--nodes 1000] [--jobs 10000] [--scale 10000]
//                  [--seed 42] [--clients 16] [--quiet-s 5] [--keep] [--timeline]
//                  [--dev] [--one-gpu-jobs]
// --dev: the same through `etna dev` (one process; its simulated nodes of 8 H100s run each pod
// as a process), printing `BENCH e2e-dev ... dev_rss_mb=<n>` instead of the three RSS fields.
// --one-gpu-jobs: every job one pod of one GPU (what `etna dev` users submit from a notebook).
// --scale 10000: 10,000 nodes and 100,000 jobs. --keep leaves the temp dir (logs, store, and the
// server's /metrics at the end of the run in server.metrics: requests per verb and resource).
// --timeline: each second, on stderr, how many jobs were created, PodGroups and pods made, pods
// bound (to see which stage lags).
#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent/node_object.h"
#include "api/types/well_known.h"
#include "bench/daemons.h"
#include "bench/volcano_workload.h"
#include "client/informer.h"
#include "client/kubeconfig.h"
#include "client/rest.h"
#include "client/transport.h"
#include "common/clock.h"
#include "common/file.h"

namespace {

using etna::Status;
using etna::bench::BenchJob;
using etna::bench::Daemon;
using nlohmann::json;
using Steady = std::chrono::steady_clock;

constexpr int kGpusPerNode = 8;
constexpr int kLeaseSeconds = 40;

struct Flags {
  std::string etna = "build/src/cli/etna";
  int nodes = 1000;
  int jobs = 10000;
  uint64_t seed = 42;
  int clients = 16;
  int quiet_s = 5;
  bool keep = false;
  bool timeline = false;
  bool dev = false;
  bool one_gpu_jobs = false;
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "e2e_bench: %s\n", what.c_str());
  std::exit(1);
}

// Runs fn(i) for i in [0, n) on `threads` threads, each with its own HTTPS client.
void ParallelFor(int n, int threads, const etna::client::KubeConfig& config,
                 const std::function<void(etna::client::RestClient&, int)>& fn) {
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      auto transport = etna::client::MakeHttpTransport(config);
      etna::client::RestClient rest(transport.get());
      for (int i = next++; i < n; i = next++) fn(rest, i);
    });
  }
  for (auto& t : pool) t.join();
}

etna::agent::NodeReport SimulatedNode(int i) {
  etna::agent::NodeReport r;
  r.spec.name = fmt::format("node-{:05d}", i);
  r.spec.cpu = "128";
  r.spec.memory = "1Ti";
  r.spec.switch_name = fmt::format("switch-{}", i / 32);
  r.hostname = r.spec.name;
  for (int g = 0; g < kGpusPerNode; ++g) {
    etna::agent::GpuDevice d;
    d.gpu.index = g;
    d.gpu.uuid = fmt::format("GPU-{:05d}-{}", i, g);
    d.gpu.model = "NVIDIA-H100-80GB-HBM3";
    d.gpu.memory_mib = 81559;
    d.gpu.numa = g / 4;
    d.gpu.nvlink_domain = 0;
    r.gpus.push_back(d);
  }
  return r;
}

json VolcanoJob(const BenchJob& job) {
  json requests = {{"cpu", std::to_string(job.cpus_per_node())},
                   {"memory", fmt::format("{}Gi", job.memory_gib_per_node())},
                   {"nvidia.com/gpu", std::to_string(job.gpus_per_node)}};
  json pod_spec = {
      {"restartPolicy", "Never"},
      {"containers",
       json::array({{{"name", "main"},
                     {"image", "pytorch:2.0"},
                     {"command", json::array({"sleep", "1800"})},
                     {"resources",
                      {{"requests", requests},
                       {"limits", {{"nvidia.com/gpu", std::to_string(job.gpus_per_node)}}}}}}})}};
  return {{"apiVersion", "batch.volcano.sh/v1alpha1"},
          {"kind", "Job"},
          {"metadata", {{"name", job.name}, {"namespace", "default"}}},
          {"spec",
           {{"schedulerName", "volcano"},
            {"queue", "default"},
            {"minAvailable", job.nodes},
            {"tasks", json::array({{{"name", "worker"},
                                    {"replicas", job.nodes},
                                    {"template", {{"spec", pod_spec}}}}})}}}};
}

// What the pod watch saw, per job: when each pod was first seen bound.
class BindLog {
 public:
  explicit BindLog(const std::vector<BenchJob>& jobs) {
    for (size_t i = 0; i < jobs.size(); ++i) index_[jobs[i].name] = i;
    submitted_.resize(jobs.size());
    bound_pods_.resize(jobs.size(), 0);
  }
  void Submitted(size_t job, Steady::time_point at) {
    std::lock_guard lock(mu_);
    submitted_[job] = at;
  }
  void OnPod(const std::string& type, const json& pod) {
    const json& meta = pod["metadata"];
    std::lock_guard lock(mu_);
    if (type == "DELETED") {  // a bound pod deleted no longer holds its GPUs
      if (bound_uids_.erase(meta.value("uid", "")) == 0) return;
      auto job = index_.find(meta["annotations"].value(etna::api::types::kJobNameAnnotation, ""));
      if (job != index_.end()) --bound_pods_[job->second];
      ++deleted_bound_;
      return;
    }
    created_uids_.insert(meta.value("uid", ""));
    if (pod["spec"].value("nodeName", "").empty()) return;
    auto now = Steady::now();
    if (!bound_uids_.insert(meta.value("uid", "")).second) return;
    auto job = index_.find(meta["annotations"].value(etna::api::types::kJobNameAnnotation, ""));
    if (job == index_.end()) return;
    ++bound_pods_[job->second];
    latencies_ms_.push_back(
        std::chrono::duration<double, std::milli>(now - submitted_[job->second]).count());
    last_bind_ = now;
  }
  size_t bound() {
    std::lock_guard lock(mu_);
    return latencies_ms_.size();
  }
  size_t created() {
    std::lock_guard lock(mu_);
    return created_uids_.size();
  }
  // Bound pods deleted since (a node's lease lapsed, a job restarted them).
  size_t deleted_bound() {
    std::lock_guard lock(mu_);
    return deleted_bound_;
  }
  Steady::time_point last_bind() {
    std::lock_guard lock(mu_);
    return last_bind_;
  }
  // Jobs with all their pods bound, and the GPUs the bound pods hold.
  struct Progress {
    int started_jobs = 0;
    int gpus = 0;
  };
  Progress Started(const std::vector<BenchJob>& jobs) {
    std::lock_guard lock(mu_);
    Progress p;
    for (size_t i = 0; i < jobs.size(); ++i) {
      p.gpus += bound_pods_[i] * jobs[i].gpus_per_node;
      if (bound_pods_[i] == jobs[i].nodes) ++p.started_jobs;
    }
    return p;
  }
  double PercentileMs(double q) {
    std::lock_guard lock(mu_);
    if (latencies_ms_.empty()) return 0;
    std::vector<double> sorted = latencies_ms_;
    size_t k = std::min(sorted.size() - 1, static_cast<size_t>(q * sorted.size()));
    std::nth_element(sorted.begin(), sorted.begin() + k, sorted.end());
    return sorted[k];
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<Steady::time_point> submitted_;
  std::vector<int> bound_pods_;
  std::unordered_set<std::string> bound_uids_;
  std::unordered_set<std::string> created_uids_;
  std::vector<double> latencies_ms_;
  size_t deleted_bound_ = 0;
  Steady::time_point last_bind_{};
};

// Renews every node's Lease each quarter of its duration and writes its status each duration,
// as the agents would, until stopped.
class AgentHeartbeats {
 public:
  AgentHeartbeats(const etna::client::KubeConfig& config, std::vector<etna::agent::NodeReport> n)
      : config_(config), nodes_(std::move(n)), thread_([this] { Run(); }) {}
  ~AgentHeartbeats() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  // Each round from 8 threads, as independent agents would renew: one thread renewing 10,000
  // leases in turn risks missing the 10 s period, and late leases would mark nodes lost.
  void Run() {
    auto period = std::chrono::milliseconds(kLeaseSeconds * 1000 / 4);
    for (int round = 1;; ++round) {
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, period, [this] { return stop_; })) return;
      lock.unlock();
      ParallelFor(
          static_cast<int>(nodes_.size()), 8, config_, [&](etna::client::RestClient& rest, int i) {
            auto& node = nodes_[i];
            node.now = etna::SystemClock().NowMs();
            Status st = etna::agent::RenewLease(rest, node.spec.name, kLeaseSeconds, node.now);
            if (st.ok() && round % 4 == 0) st = etna::agent::UpdateNodeStatus(rest, node);
            if (!st.ok()) std::fprintf(stderr, "e2e_bench: %s\n", st.ToString().c_str());
          });
    }
  }

  etna::client::KubeConfig config_;
  std::vector<etna::agent::NodeReport> nodes_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " needs a value");
      return argv[++i];
    };
    auto number = [&](int min) {
      std::string v = value();
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (*end != '\0' || n < min || n > 10000000)
        Die(fmt::format("{}: {} is not a number >= {}", a, v, min));
      return static_cast<int>(n);
    };
    if (a == "--etna") {
      f.etna = value();
    } else if (a == "--nodes") {
      f.nodes = number(1);
    } else if (a == "--jobs") {
      f.jobs = number(1);
    } else if (a == "--scale") {
      f.nodes = number(1);
      f.jobs = f.nodes * 10;
    } else if (a == "--seed") {
      f.seed = static_cast<uint64_t>(number(0));
    } else if (a == "--clients") {
      f.clients = number(1);
    } else if (a == "--quiet-s") {
      f.quiet_s = number(1);
    } else if (a == "--keep") {
      f.keep = true;
    } else if (a == "--timeline") {
      f.timeline = true;
    } else if (a == "--dev") {
      f.dev = true;
    } else if (a == "--one-gpu-jobs") {
      f.one_gpu_jobs = true;
    } else {
      Die("unknown flag " + a +
          " (--etna PATH --nodes N --jobs N --scale N --seed N --clients N --quiet-s N --keep "
          "--timeline --dev --one-gpu-jobs)");
    }
  }
  return f;
}

Daemon StartDaemon(const std::string& name, std::vector<std::string> argv, const std::string& dir,
                   const std::string& ready_line) {
  auto d = Daemon::Spawn(name, argv, dir + "/" + name + ".log");
  if (!d.ok()) Die(d.status().ToString());
  auto ready = d->WaitForLog(ready_line, std::chrono::seconds(60));
  if (!ready.ok()) Die(ready.status().ToString());
  return std::move(*d);
}

// The processes under test: `etna server`, `etna scheduler` and `etna controllers` with the
// benchmark's own heartbeats for the nodes, or one `etna dev`.
struct Deployment {
  std::vector<Daemon> daemons;  // server, scheduler, controllers; or dev
  std::unique_ptr<AgentHeartbeats> heartbeats;
  std::string kubeconfig;
};

Deployment StartSplit(const Flags& flags, const std::string& dir) {
  Deployment d;
  d.daemons.push_back(StartDaemon(
      "server", {flags.etna, "server", "--data-dir", dir + "/data", "--listen", "127.0.0.1:0"}, dir,
      "serving https://"));
  d.kubeconfig = dir + "/data/kubeconfig";
  auto config = etna::client::LoadKubeconfig(d.kubeconfig);
  if (!config.ok()) Die(config.status().ToString());
  // The nodes register before the scheduler starts, so its first list holds them all.
  std::vector<etna::agent::NodeReport> nodes;
  for (int i = 0; i < flags.nodes; ++i) nodes.push_back(SimulatedNode(i));
  ParallelFor(flags.nodes, 16, *config, [&](etna::client::RestClient& rest, int i) {
    nodes[i].now = etna::SystemClock().NowMs();
    Status st = etna::agent::RegisterNode(rest, nodes[i]);
    if (st.ok())
      st = etna::agent::RenewLease(rest, nodes[i].spec.name, kLeaseSeconds, nodes[i].now);
    if (!st.ok()) Die(st.ToString());
  });
  d.heartbeats = std::make_unique<AgentHeartbeats>(*config, nodes);
  d.daemons.push_back(StartDaemon(
      "scheduler",
      {flags.etna, "scheduler", "--kubeconfig", d.kubeconfig, "--listen", "127.0.0.1:0"}, dir,
      "etna scheduler: ready"));
  d.daemons.push_back(StartDaemon(
      "controllers",
      {flags.etna, "controllers", "--kubeconfig", d.kubeconfig, "--listen", "127.0.0.1:0"}, dir,
      "etna controllers: running against"));
  return d;
}

// `etna dev` with --nodes simulated nodes of 8 H100s on one NVSwitch each, 32 to a switch.
Deployment StartDev(const Flags& flags, const std::string& dir) {
  std::string profile = "nodeGroups:\n";
  for (int first = 0, sw = 0; first < flags.nodes; first += 32, ++sw) {
    profile += fmt::format(
        "- name: s{}n\n  count: {}\n  cpu: \"128\"\n  memory: 1Ti\n  switch: switch-{}\n"
        "  gpus: {{model: NVIDIA-H100-80GB-HBM3, count: {}, memoryMiB: 81559, nvlink: nvswitch}}\n",
        sw, std::min(32, flags.nodes - first), sw, kGpusPerNode);
  }
  if (Status st = etna::WriteFileAtomically(dir + "/profile.yaml", profile, 0644); !st.ok()) {
    Die(st.ToString());
  }
  Deployment d;
  d.daemons.push_back(StartDaemon("dev",
                                  {flags.etna, "dev", "--data-dir", dir + "/data", "--listen",
                                   "127.0.0.1:0", "--profile", dir + "/profile.yaml"},
                                  dir, "etna dev: ready"));
  d.kubeconfig = dir + "/data/kubeconfig";
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  if (!std::filesystem::exists(flags.etna)) Die("--etna " + flags.etna + ": no such file");
  // Under $TMPDIR (else /tmp): the data directory's disk is part of what is measured.
  std::error_code ec;
  std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) Die("TMPDIR: " + ec.message());
  std::string dir_template = (tmp / "etna-e2e-bench-XXXXXX").string();
  if (!mkdtemp(dir_template.data())) Die("mkdtemp failed in " + dir_template);
  std::string dir = dir_template;
  std::vector<BenchJob> jobs = etna::bench::VolcanoBenchWorkload(flags.jobs, flags.seed);
  if (flags.one_gpu_jobs) {
    for (BenchJob& j : jobs) j.nodes = j.gpus_per_node = 1;
  }
  int pods = 0;
  for (const BenchJob& j : jobs) pods += j.nodes;

  Deployment deployment = flags.dev ? StartDev(flags, dir) : StartSplit(flags, dir);
  auto config = etna::client::LoadKubeconfig(deployment.kubeconfig);
  if (!config.ok()) Die(config.status().ToString());

  BindLog binds(jobs);
  auto watch_transport = etna::client::MakeHttpTransport(*config);
  etna::client::InformerOptions watch_options;
  watch_options.path = etna::client::Path("pods");
  etna::client::Informer watch(
      watch_transport.get(), watch_options,
      [&](const std::string& type, const json& pod) { binds.OnPod(type, pod); });
  watch.Start();
  if (!watch.WaitForSync(std::chrono::seconds(60))) Die("the pod watch did not sync");

  std::atomic<int> podgroups{0};
  auto podgroup_transport = etna::client::MakeHttpTransport(*config);
  etna::client::InformerOptions podgroup_options;
  podgroup_options.path = etna::client::Path("podgroups");
  etna::client::Informer podgroup_watch(podgroup_transport.get(), podgroup_options,
                                        [&](const std::string& type, const json&) {
                                          if (type == "ADDED") ++podgroups;
                                        });
  if (flags.timeline) podgroup_watch.Start();

  auto start = Steady::now();
  std::atomic<int> jobs_created{0};
  std::atomic<int64_t> last_create_ns{0};
  std::atomic<bool> submit_done{false};
  std::thread submitter([&] {
    ParallelFor(flags.jobs, flags.clients, *config, [&](etna::client::RestClient& rest, int i) {
      binds.Submitted(i, Steady::now());
      auto created = rest.Create(etna::client::Path("vcjob", "default"), VolcanoJob(jobs[i]));
      if (!created.ok()) Die(jobs[i].name + ": " + created.status().ToString());
      ++jobs_created;
      int64_t ns = (Steady::now() - start).count();
      int64_t prev = last_create_ns.load();
      while (ns > prev && !last_create_ns.compare_exchange_weak(prev, ns)) {
      }
    });
    submit_done = true;
  });
  // Every GPU bound, or nothing bound for --quiet-s since the last submit and the last bind.
  const int total_gpus = flags.nodes * kGpusPerNode;
  auto deadline = start + std::chrono::minutes(30);
  auto next_line = start + std::chrono::seconds(1);
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int gpus = binds.Started(jobs).gpus;
    if (flags.timeline && Steady::now() >= next_line) {
      std::fprintf(stderr, "t=%.0fs jobs=%d podgroups=%d pods=%zu bound=%zu gpus=%d\n",
                   std::chrono::duration<double>(Steady::now() - start).count(),
                   jobs_created.load(), podgroups.load(), binds.created(), binds.bound(), gpus);
      next_line += std::chrono::seconds(1);
    }
    if (gpus >= total_gpus) break;
    if (Steady::now() > deadline) Die("the cluster did not fill within 30 minutes");
    if (!submit_done) continue;
    auto last_event =
        std::max(binds.last_bind(), start + std::chrono::nanoseconds(last_create_ns.load()));
    if (Steady::now() - last_event > std::chrono::seconds(flags.quiet_s)) break;
  }
  submitter.join();
  auto [started, gpus_allocated] = binds.Started(jobs);
  double submit_s = last_create_ns.load() / 1e9;
  double fill_s = std::chrono::duration<double>(binds.last_bind() - start).count();
  std::fprintf(stderr, "e2e_bench: %zu of %d pods bound, %d of %d jobs started\n", binds.bound(),
               pods, started, flags.jobs);
  if (size_t deleted = binds.deleted_bound()) {
    std::fprintf(stderr, "e2e_bench: %zu bound pods were deleted again (not counted in gpus)\n",
                 deleted);
  }
  std::string figures = fmt::format(
      "nodes={} jobs={} pods={} submit_s={:.2f} fill_s={:.2f} gpus_allocated={} jobs_per_s={:.0f} "
      "bind_p50_ms={:.0f} bind_p99_ms={:.0f}",
      flags.nodes, flags.jobs, pods, submit_s, fill_s, gpus_allocated,
      fill_s > 0 ? started / fill_s : 0, binds.PercentileMs(0.5), binds.PercentileMs(0.99));
  const std::vector<Daemon>& daemons = deployment.daemons;
  if (flags.dev) {
    std::fprintf(stderr, "e2e_bench: CPU seconds: dev %.1f\n", daemons[0].CpuSeconds());
    std::printf("BENCH e2e-dev %s dev_rss_mb=%.0f\n", figures.c_str(), daemons[0].PeakRssMb());
  } else {
    std::fprintf(stderr, "e2e_bench: CPU seconds: server %.1f, scheduler %.1f, controllers %.1f\n",
                 daemons[0].CpuSeconds(), daemons[1].CpuSeconds(), daemons[2].CpuSeconds());
    std::printf("BENCH e2e %s server_rss_mb=%.0f scheduler_rss_mb=%.0f controllers_rss_mb=%.0f\n",
                figures.c_str(), daemons[0].PeakRssMb(), daemons[1].PeakRssMb(),
                daemons[2].PeakRssMb());
  }
  if (flags.keep) {
    auto metrics = watch_transport->Do("GET", "/metrics", "");
    if (metrics.ok()) (void)etna::WriteFileAtomically(dir + "/server.metrics", metrics->body, 0644);
  }
  deployment.heartbeats.reset();
  watch.Stop();
  podgroup_watch.Stop();
  // Last started, first stopped: the server outlives its clients.
  for (auto it = deployment.daemons.rbegin(); it != deployment.daemons.rend(); ++it) it->Stop();
  if (flags.keep) {
    std::fprintf(stderr, "e2e_bench: logs and store kept in %s\n", dir.c_str());
  } else {
    std::filesystem::remove_all(dir);
  }
  return 0;
}
