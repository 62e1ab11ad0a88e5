#include "scheduler/scheduler.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "api/types/fields.h"
#include "api/types/well_known.h"
#include "client/lease.h"
#include "sched/fairness/fairshare.h"
#include "sched/framework/cycle.h"
#include "sched/framework/registry.h"

namespace etna::scheduler {
namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

std::chrono::milliseconds GatherAfterWakeup(std::chrono::milliseconds last_cycle,
                                            const SchedulerOptions& options) {
  return std::clamp(last_cycle, options.debounce, std::max(options.debounce, options.period));
}

Scheduler::Scheduler(SchedulerOptions options)
    : options_(std::move(options)),
      registry_(options_.metrics ? options_.metrics : &own_registry_),
      metrics_(std::make_unique<SchedulerMetrics>(registry_)),
      clock_(options_.clock ? options_.clock : &system_clock_),
      // Every write goes through rest_: none leaves once StepDown() has closed the gate.
      writes_open_(!options_.standby),
      rest_transport_(client::MakeGatedTransport(options_.transports(), &writes_open_)),
      rest_(rest_transport_.get()),
      cache_(options_.scheduler_names) {
  events_ = std::make_unique<EventRecorder>(&rest_, clock_, "volcano");
  applier_ =
      std::make_unique<DecisionApplier>(&rest_, &cache_, events_.get(), options_.bind_workers);
  cache_.SetWakeup([this] { Wake(); });
  if (options_.time_zone) {
    cache_.SetTimeZone(*options_.time_zone);
  } else if (auto host = TimeZone::Host(); host.ok()) {
    cache_.SetTimeZone(*host);
  } else {
    std::fprintf(stderr, "scheduler: %s; queue time windows are judged in UTC\n",
                 host.status().message().c_str());
  }
}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::AddInformer(const std::string& path, client::Informer::Handler handler,
                            const std::string& field_selector) {
  transports_.push_back(options_.transports());
  client::InformerOptions o;
  o.path = path;
  o.field_selector = field_selector;
  o.cache_objects = false;  // the Cache keeps its own converted records
  informers_.push_back(
      std::make_unique<client::Informer>(transports_.back().get(), o, std::move(handler)));
}

Status Scheduler::Start() {
  const std::string_view text =
      options_.conf_yaml.empty() ? sched::DefaultSchedulerConfYaml() : options_.conf_yaml;
  auto conf = sched::ParseSchedulerConf(text, sched::BuiltinRegistry());
  if (!conf.ok()) return conf.status().WithContext("scheduler configuration");
  {
    std::lock_guard<std::mutex> lock(conf_mu_);
    base_conf_ = std::move(*conf);
    base_source_ = options_.conf_yaml.empty() ? "built-in default" : "the --conf file";
    conf_text_ = std::string(text);
    ComposeLocked(nullptr);
  }
  using namespace std::placeholders;
  AddInformer(client::Path("nodes"), std::bind(&Cache::OnNode, &cache_, _1, _2));
  AddInformer(client::Path("queues"), std::bind(&Cache::OnQueue, &cache_, _1, _2));
  AddInformer(client::Path("priorityclasses"), std::bind(&Cache::OnPriorityClass, &cache_, _1, _2));
  AddInformer(client::Path("hypernodes"), std::bind(&Cache::OnHyperNode, &cache_, _1, _2));
  AddInformer(client::Path("podgroups"), std::bind(&Cache::OnPodGroup, &cache_, _1, _2));
  AddInformer(client::Path("pods"), std::bind(&Cache::OnPod, &cache_, _1, _2));
  // The Volcano ConfigMap and the seed's, both in volcano-system (OnConfigMap tells them apart).
  AddInformer(client::Path("configmaps", kConfigMapNamespace),
              std::bind(&Scheduler::OnConfigMap, this, _1, _2));
  events_->Start();
  for (auto& i : informers_) i->Start();
  for (auto& i : informers_) {
    if (!i->WaitForSync(options_.sync_timeout)) {
      return Status::Unavailable("scheduler: the API's lists did not arrive in time");
    }
  }
  if (!options_.standby) Lead();
  ready_ = true;
  return Status::Ok();
}

void Scheduler::Lead() {
  if (acting_.exchange(true)) return;
  writes_open_ = true;
  if (loop_.joinable()) loop_.join();  // the loop of an earlier term (StepDown did not wait)
  PublishReport();
  RenewNamesLease();
  if (options_.run_loop) {
    std::lock_guard<std::mutex> lock(loop_mu_);
    stop_ = false;
    loop_ = std::thread([this] { Loop(); });
  }
}

void Scheduler::StepDown() {
  writes_open_ = false;  // first: nothing leaves from here on
  acting_ = false;
  {
    std::lock_guard<std::mutex> lock(loop_mu_);
    stop_ = true;
  }
  loop_cv_.notify_all();
}

void Scheduler::Stop() {
  ready_ = false;
  StepDown();
  if (loop_.joinable()) loop_.join();
  for (auto& i : informers_) i->Stop();
  applier_->WaitForBinds();
  events_->Stop();
}

void Scheduler::RenewNamesLease() {
  std::vector<std::string> names = options_.scheduler_names;
  std::sort(names.begin(), names.end());
  std::string lease = api::types::kSchedulerLeasePrefix;
  for (size_t i = 0; i < names.size(); ++i) lease += (i ? "." : "") + names[i];
  const TimeMs now = clock_->NowMs();
  Status s = client::RenewLease(rest_, api::types::kSchedulerLeaseNamespace, lease,
                                fmt::format("{}-{}", lease, getpid()),
                                static_cast<int>(kNamesLeaseRenewMs * 3 / 1000), now,
                                {{api::types::kSchedulerNamesAnnotation,
                                  fmt::format("{}", fmt::join(options_.scheduler_names, ","))}});
  if (!s.ok()) std::fprintf(stderr, "scheduler: %s\n", s.message().c_str());
  names_lease_ms_ = now;
}

void Scheduler::Wake() {
  {
    std::lock_guard<std::mutex> lock(loop_mu_);
    woken_ = true;
  }
  loop_cv_.notify_all();
}

void Scheduler::Loop() {
  std::unique_lock<std::mutex> lock(loop_mu_);
  while (!stop_) {
    loop_cv_.wait_for(lock, options_.period, [&] { return stop_ || woken_; });
    if (stop_) break;
    if (woken_) {
      // Let a burst of submissions arrive, so that they are one cycle.
      auto gather = GatherAfterWakeup(last_cycle_, options_);
      loop_cv_.wait_for(lock, gather, [&] { return stop_; });
      if (stop_) break;
    }
    woken_ = false;
    lock.unlock();
    if (clock_->NowMs() - names_lease_ms_ >= kNamesLeaseRenewMs) RenewNamesLease();
    auto started = std::chrono::steady_clock::now();
    auto stats = Cycle();
    last_cycle_ = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    if (!stats.ok()) {
      std::fprintf(stderr, "scheduler: cycle failed: %s\n", stats.status().message().c_str());
    } else if (options_.on_cycle) {
      options_.on_cycle(*stats);
    }
    lock.lock();
  }
}

Result<CycleStats> Scheduler::RunOnce() {
  auto stats = Cycle();
  applier_->WaitForBinds();
  return stats;
}

Result<CycleStats> Scheduler::Cycle() {
  std::lock_guard<std::mutex> cycle_lock(cycle_mu_);
  CycleStats stats;
  auto t0 = std::chrono::steady_clock::now();
  Assembled view = cache_.Assemble(clock_->NowMs());
  sched::Snapshot& snap = view.snapshot;
  std::unordered_map<std::string_view, sched::NodeIdx> node_idx;
  for (size_t n = 0; n < snap.nodes.size(); ++n) node_idx[snap.nodes[n].name] = n;
  std::map<std::string, std::pair<ResourceVector, TimeMs>> evicted_in_run;
  for (auto& job : snap.jobs) {
    if (auto it = backoff_.find(job.uid); it != backoff_.end()) job.backoff = it->second;
    if (auto it = evicted_in_run_.find(job.uid); it != evicted_in_run_.end()) {
      std::tie(job.evicted_in_run, job.evicted_since_ms) = it->second;
      evicted_in_run.insert(*it);
    }
  }
  evicted_in_run_ = std::move(evicted_in_run);  // jobs that are gone are forgotten
  for (const auto& [uid, nodes] : reservations_) {
    sched::Reservation r;
    r.job_uid = uid;
    for (const auto& [name, amount] : nodes) {
      if (auto it = node_idx.find(name); it != node_idx.end())
        r.nodes.push_back({it->second, amount});
    }
    if (!r.nodes.empty()) snap.reservations.push_back(std::move(r));
  }
  stats.tasks = snap.tasks.size();
  stats.assemble_ms = MsSince(t0);
  sched::SchedulerConf conf;
  TimeMs half_life_ms;
  {
    std::lock_guard<std::mutex> lock(conf_mu_);
    conf = conf_;
    half_life_ms = usage_half_life_ms_;
  }
  const TimeMs now = clock_->NowMs();
  usage_.Advance(now, half_life_ms, snap, view.queue_allocated, view.queue_stored_usage);
  metrics_->CountGpuSeconds(snap, now);
  auto t1 = std::chrono::steady_clock::now();
  // The core takes its snapshot by value; the applier still needs the indices' meaning.
  Assembled kept{sched::Snapshot{}, std::move(view.task_keys), std::move(view.job_keys),
                 std::move(view.queue_allocated), std::move(view.queue_windows)};
  kept.snapshot.jobs = snap.jobs;
  kept.snapshot.queues = snap.queues;
  kept.snapshot.tasks.reserve(snap.tasks.size());
  for (const auto& t : snap.tasks) {
    sched::Task light;
    light.uid = t.uid;
    light.job = t.job;
    light.request = t.request;
    light.status = t.status;
    light.creation_ms = t.creation_ms;
    kept.snapshot.tasks.push_back(std::move(light));
  }
  std::vector<sched::Node> nodes;  // the applier needs device UUIDs and MIG ids
  auto decision = sched::RunCycle(
      std::move(snap), conf, sched::BuiltinRegistry(),
      [] {
        return std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
      },
      &nodes);
  if (!decision.ok()) return decision.status();
  stats.cycle_ms = MsSince(t1);
  auto t2 = std::chrono::steady_clock::now();
  for (const auto& u : decision->jobs) {
    if (u.backoff.failures == 0 && u.backoff.not_before_ms == 0) {
      backoff_.erase(u.job_uid);  // placed (or never failed): nothing to carry
    } else {
      backoff_[u.job_uid] = u.backoff;
    }
    if (u.evicted_in_run_changed) {
      evicted_in_run_[u.job_uid] = {u.evicted_in_run, u.evicted_since_ms};
    }
  }
  reservations_.clear();
  for (const auto& r : decision->reservations) {
    std::vector<std::pair<std::string, ResourceVector>> by_name;
    for (const auto& [n, amount] : r.nodes) {
      if (n >= 0 && n < static_cast<sched::NodeIdx>(nodes.size())) {
        by_name.push_back({nodes[n].name, amount});
      }
    }
    reservations_.push_back({r.job_uid, std::move(by_name)});
  }
  CarryNominations(kept.snapshot, decision->nominations);
  applier_->Apply(kept, nodes, *decision, usage_, now);
  stats.apply_ms = MsSince(t2);
  stats.binds = decision->binds.size();
  stats.evictions = decision->evictions.size();
  metrics_->ObserveCycle(kept.snapshot, *decision, MsSince(t0), clock_->NowMs());
  ++cycles_;
  return stats;
}

void Scheduler::CarryNominations(const sched::Snapshot& kept,
                                 const std::vector<sched::NominateDecision>& nominations) {
  // job uid -> node name -> what its pipelined tasks wait for there (a node that is gone by the
  // next cycle is dropped there, with every other reservation on it)
  std::map<std::string, std::map<std::string, ResourceVector>> held;
  for (const auto& nom : nominations) {
    if (nom.task < 0 || nom.task >= static_cast<sched::TaskIdx>(kept.tasks.size())) continue;
    const sched::Task& t = kept.tasks[nom.task];
    if (t.job < 0 || t.job >= static_cast<sched::JobIdx>(kept.jobs.size())) continue;
    held[kept.jobs[t.job].uid][nom.node] += t.request;
  }
  for (auto& [uid, by_node] : held) {
    bool reserved = std::any_of(reservations_.begin(), reservations_.end(),
                                [&](const auto& r) { return r.first == uid; });
    if (reserved) continue;  // the core's own reservation already holds the capacity
    std::vector<std::pair<std::string, ResourceVector>> amounts(by_node.begin(), by_node.end());
    reservations_.push_back({uid, std::move(amounts)});
  }
}

Status Scheduler::conf_status() const {
  std::lock_guard<std::mutex> lock(conf_mu_);
  return conf_status_;
}

void Scheduler::OnConfigMap(const std::string& type, const nlohmann::json& object) {
  std::string name = api::types::String(object, {"metadata", "name"});
  if (name == kSeedConfigMapName) {
    OnSeedConfigMap(type, object);
  } else if (name == kConfigMapName && options_.conf_yaml.empty() && type != "DELETED") {
    OnVolcanoConfigMap(object);  // a deleted one: keep what we have
  }
}

void Scheduler::OnVolcanoConfigMap(const nlohmann::json& object) {
  const auto& data = object.contains("data") ? object["data"] : nlohmann::json::object();
  std::string text = data.contains(kConfigMapKey) && data[kConfigMapKey].is_string()
                         ? data[kConfigMapKey].get<std::string>()
                         : std::string();
  std::string error;
  {
    std::lock_guard<std::mutex> lock(conf_mu_);
    if (text == conf_text_) return;
    if (text.empty()) {
      error = fmt::format("configmap {}/{} has no key {}", kConfigMapNamespace, kConfigMapName,
                          kConfigMapKey);
    } else {
      auto conf = sched::ParseSchedulerConf(text, sched::BuiltinRegistry());
      if (conf.ok()) {
        sched::SchedulerConf previous = base_conf_;
        base_conf_ = std::move(*conf);
        error = ComposeLocked(nullptr);
        if (error.empty()) {
          conf_text_ = text;
          base_source_ = fmt::format("ConfigMap {}/{} key {}", kConfigMapNamespace, kConfigMapName,
                                     kConfigMapKey);
          std::fprintf(stderr, "scheduler: configuration reloaded from %s/%s\n",
                       kConfigMapNamespace, kConfigMapName);
        } else {
          base_conf_ = std::move(previous);
        }
      } else {
        error = conf.status().message();
      }
    }
    conf_status_ = error.empty() ? Status::Ok() : Status::InvalidArgument(error);
  }
  if (!error.empty()) {
    std::fprintf(stderr, "scheduler: keeping the previous configuration: %s/%s key %s: %s\n",
                 kConfigMapNamespace, kConfigMapName, kConfigMapKey, error.c_str());
    std::string uid = object["metadata"].value("uid", "");
    events_->Record({"ConfigMap", "v1", kConfigMapNamespace, kConfigMapName, uid}, "Warning",
                    "InvalidConfiguration", error);
  }
  PublishReport();
  Wake();
}

void Scheduler::OnSeedConfigMap(const std::string& type, const nlohmann::json& object) {
  std::optional<std::map<std::string, std::string>> data;
  if (type != "DELETED") {
    data.emplace();
    for (const auto& [key, value] : api::types::Object(object, {"data"}).items()) {
      if (value.is_string()) (*data)[key] = value.get<std::string>();
    }
  }
  std::vector<SeedKeyOutcome> ignored;
  std::string error;
  {
    std::lock_guard<std::mutex> lock(conf_mu_);
    if (data == seed_data_) return;
    auto previous = std::move(seed_data_);
    seed_data_ = std::move(data);
    error = ComposeLocked(&ignored);
    if (!error.empty()) seed_data_ = std::move(previous);
    conf_status_ = error.empty() ? Status::Ok() : Status::InvalidArgument(error);
  }
  ObjectRef ref{"ConfigMap", "v1", kSeedConfigMapNamespace, kSeedConfigMapName,
                api::types::String(object, {"metadata", "uid"})};
  if (!error.empty()) {
    std::fprintf(stderr, "scheduler: keeping the previous configuration: %s/%s: %s\n",
                 kSeedConfigMapNamespace, kSeedConfigMapName, error.c_str());
    events_->Record(ref, "Warning", "InvalidConfiguration", error);
  }
  for (const auto& o : ignored) events_->Record(ref, "Warning", "IgnoredConfiguration", o.Line());
  PublishReport();
  Wake();
}

std::string Scheduler::ComposeLocked(std::vector<SeedKeyOutcome>* ignored) {
  SeedConfig seed;
  if (seed_data_) {
    seed = ParseSeedConfig(*seed_data_, sched::BuiltinRegistry(), options_.scheduler_names);
  }
  auto conf = ApplySeedConfig(seed, base_conf_, sched::BuiltinRegistry());
  if (!conf.ok()) return conf.status().message();
  auto fairshare = sched::fairness::FairshareOf(*conf);
  if (!fairshare.ok()) return fairshare.status().message();
  conf_ = std::move(*conf);
  usage_half_life_ms_ =
      fairshare->enabled ? fairshare->half_life_ms : sched::kDefaultUsageHalfLifeMs;
  cache_.SetPriorityConf(seed.priority);
  nlohmann::json tiers = nlohmann::json::array();
  for (const auto& tier : conf_.tiers) {
    nlohmann::json plugins = nlohmann::json::array();
    for (const auto& p : tier.plugins) {
      plugins.push_back({{"name", p.name}, {"arguments", p.arguments.values()}});
    }
    tiers.push_back(std::move(plugins));
  }
  nlohmann::json keys = nlohmann::json::array();
  for (const auto& o : seed.outcomes) {
    keys.push_back({{"key", o.key}, {"inForce", o.in_force}, {"detail", o.detail}});
    if (ignored && !o.in_force) ignored->push_back(o);
  }
  report_ = {
      {"source", base_source_}, {"actions", conf_.actions}, {"tiers", tiers}, {"keys", keys}};
  if (seed_data_) {
    report_["seedConfigMap"] = fmt::format("{}/{}", kSeedConfigMapNamespace, kSeedConfigMapName);
  }
  return "";
}

void Scheduler::PublishReport() {
  if (!acting_) return;  // a standby leaves the report to the leader (Lead() publishes it)
  std::string text;
  {
    std::lock_guard<std::mutex> lock(conf_mu_);
    text = report_.dump(2);
  }
  std::lock_guard<std::mutex> lock(report_mu_);
  if (text == published_report_) return;
  nlohmann::json data = {{kConfigReportKey, text}};
  std::string path = client::Path("configmaps", kConfigMapNamespace, kConfigReportName);
  auto patched = rest_.MergePatch(path, {{"data", data}});
  if (!patched.ok() && patched.status().code() == StatusCode::kNotFound) {
    patched = rest_.Create(client::Path("configmaps", kConfigMapNamespace),
                           {{"apiVersion", "v1"},
                            {"kind", "ConfigMap"},
                            {"metadata", {{"name", kConfigReportName}}},
                            {"data", data}});
  }
  if (!patched.ok()) {
    std::fprintf(stderr, "scheduler: writing the configuration report %s/%s: %s\n",
                 kConfigMapNamespace, kConfigReportName, patched.status().message().c_str());
    return;
  }
  published_report_ = text;
}

}  // namespace etna::scheduler
