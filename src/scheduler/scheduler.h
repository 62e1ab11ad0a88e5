// Scheduler: the daemon around the pure core. Informers (one transport each) feed the Cache;
// a loop runs a cycle every `period`, or sooner when the cache reports new pending work or freed
// capacity (debounced), assembles the snapshot, runs sched::RunCycle and applies the Decision
// (apply.h). The configuration comes from `conf_yaml` when given, else from the ConfigMap
// volcano-system/volcano-scheduler-configmap key volcano-scheduler.conf (reloaded when it
// changes; a bad one keeps the previous configuration and is reported as a log line and a
// Warning Event on the ConfigMap), else the core's default. The seed's ConfigMap
// volcano-system/volcano-scheduler-config (seed_config.h) is applied on top: its priority
// classes reach the cache, its plugin list and arguments the tiers; each key it ignores is a
// Warning Event (reason IgnoredConfiguration) on it. What is in force, and every seed key's
// outcome, is published as the ConfigMap volcano-system/etna-scheduler-config-report key
// report.json (`etna explain config` prints it).
//
// Thread-safety: Start/Stop/RunOnce from the owner; accessors from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/types/well_known.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/rest.h"
#include "client/transport.h"
#include "common/clock.h"
#include "common/metrics.h"
#include "common/time_zone.h"
#include "sched/framework/conf.h"
#include "scheduler/apply.h"
#include "scheduler/cache.h"
#include "scheduler/scheduler_metrics.h"
#include "scheduler/seed_config.h"

namespace etna::scheduler {

inline constexpr char kConfigMapNamespace[] = "volcano-system";
inline constexpr char kConfigMapName[] = "volcano-scheduler-configmap";
inline constexpr char kConfigMapKey[] = "volcano-scheduler.conf";
// The configuration report the scheduler writes (api/types/well_known.h).
using api::types::kConfigReportKey;
using api::types::kConfigReportName;

struct CycleStats {
  size_t tasks = 0;
  size_t binds = 0;
  size_t evictions = 0;
  double assemble_ms = 0;
  double cycle_ms = 0;
  double apply_ms = 0;
};

struct SchedulerOptions {
  client::TransportFactory transports;
  const Clock* clock = nullptr;  // null: the system clock
  // The zone Queue timePolicies are judged in; unset: the host's (UTC when it cannot be read).
  std::optional<TimeZone> time_zone;
  std::string conf_yaml;  // a configuration file's text; empty: the ConfigMap or default
  std::chrono::milliseconds period{1000};
  // The least wait after a wakeup, so that a burst is one cycle (GatherAfterWakeup).
  std::chrono::milliseconds debounce{20};
  std::vector<std::string> scheduler_names{"volcano", "etna", "default-scheduler"};
  int bind_workers = 16;
  bool run_loop = true;  // false: cycles only through RunOnce (tests)
  // Start() keeps the caches warm but writes nothing until Lead() (a leader-election standby).
  bool standby = false;
  std::chrono::milliseconds sync_timeout{30000};
  // Called after each cycle of the loop (for benchmarks and logs); on the loop's thread.
  std::function<void(const CycleStats&)> on_cycle;
  // Where the scheduler's metrics go (`etna dev` shares one registry); null: its own.
  metrics::Registry* metrics = nullptr;
};

// How long the loop waits after a wakeup before it runs a cycle: the debounce, or the previous
// cycle's length when longer (at most the period), so that while work keeps arriving the
// scheduler spends at most about half its time in cycles whose cost is mostly fixed.
std::chrono::milliseconds GatherAfterWakeup(std::chrono::milliseconds last_cycle,
                                            const SchedulerOptions& options);

class Scheduler {
 public:
  explicit Scheduler(SchedulerOptions options);
  ~Scheduler();  // Stop()s
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Loads the configuration, starts the informers and waits for their first lists, then
  // Lead()s unless options.standby. Fails on a bad conf_yaml or when the lists time out.
  Status Start();
  void Stop();
  // Starts acting: publishes the configuration report, renews the names Lease and starts the
  // loop (unless run_loop is false). Idempotent.
  void Lead();
  // Stops acting at once: no write leaves this scheduler after it returns (its writes go through
  // a gate this closes) and the loop ends after its current cycle, which it does not wait for
  // (on a cut-off network a cycle may hang in a request until its timeout). Requests already
  // sent are not called back. The caches stay warm for the next Lead().
  void StepDown();
  bool acting() const { return acting_; }

  // One cycle now; waits for its binds to be answered.
  Result<CycleStats> RunOnce();

  // The result of the last configuration load (ok, or the error that kept the previous one).
  Status conf_status() const;
  Cache& cache() { return cache_; }
  EventRecorder& events() { return *events_; }
  ApplyStats apply_stats() const { return applier_->stats(); }
  uint64_t cycles() const { return cycles_; }
  metrics::Registry& metrics_registry() { return *registry_; }
  // Started: the informers have listed everything once and the loop runs.
  bool ready() const { return ready_; }

 private:
  void Loop();
  void Wake();
  Result<CycleStats> Cycle();
  void OnConfigMap(const std::string& type, const nlohmann::json& object);
  void OnVolcanoConfigMap(const nlohmann::json& object);
  void OnSeedConfigMap(const std::string& type, const nlohmann::json& object);
  // conf_ = base_conf_ with the seed's ConfigMap applied; fills report_. Under conf_mu_.
  // Returns the error that kept the previous configuration, or "".
  std::string ComposeLocked(std::vector<SeedKeyOutcome>* ignored);
  // Writes report_ to the report ConfigMap when it changed.
  void PublishReport();
  // Holds what a preemptor's pipelined tasks wait for (the resources its victims release) as a
  // reservation for the next cycles, so the victims' requeued pods, or anyone else, cannot
  // take it back before the preemptor binds. Kept while the core keeps nominating the tasks.
  void CarryNominations(const sched::Snapshot& kept,
                        const std::vector<sched::NominateDecision>& nominations);
  void AddInformer(const std::string& path, client::Informer::Handler handler,
                   const std::string& field_selector = {});

  SchedulerOptions options_;
  metrics::Registry own_registry_;
  metrics::Registry* registry_;
  std::unique_ptr<SchedulerMetrics> metrics_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> acting_{false};
  // Renews the kube-system Lease "etna-scheduler.<names>" saying which schedulerNames this
  // scheduler serves (every 10 s, for 30 s).
  void RenewNamesLease();
  static constexpr TimeMs kNamesLeaseRenewMs = 10'000;
  TimeMs names_lease_ms_ = 0;                // the loop's thread only
  std::chrono::milliseconds last_cycle_{0};  // the loop's thread only

  SystemClock system_clock_;
  const Clock* clock_;
  // The gate rest_'s writes go through: open unless a standby that has not led yet or has
  // stepped down.
  std::atomic<bool> writes_open_;
  std::unique_ptr<client::Transport> rest_transport_;
  client::RestClient rest_;
  Cache cache_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<DecisionApplier> applier_;
  std::vector<std::unique_ptr<client::Transport>> transports_;
  std::vector<std::unique_ptr<client::Informer>> informers_;

  mutable std::mutex conf_mu_;
  sched::SchedulerConf conf_;  // in force: base_conf_ with the seed's ConfigMap applied
  // conf_'s fair-share half-life, the default when no plugin keeps fair share: usage is kept
  // anyway (metrics, status.usage).
  TimeMs usage_half_life_ms_ = sched::kDefaultUsageHalfLifeMs;
  sched::SchedulerConf base_conf_;  // from conf_yaml, the Volcano ConfigMap or the default
  std::string base_source_;
  Status conf_status_;
  std::string conf_text_;
  std::optional<std::map<std::string, std::string>> seed_data_;  // the seed ConfigMap's data
  nlohmann::json report_;
  std::mutex report_mu_;
  std::string published_report_;

  std::mutex cycle_mu_;  // one cycle at a time
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, ResourceVector>>>>
      reservations_;  // carried between cycles by job uid and node name
  std::map<std::string, sched::Backoff> backoff_;  // by job uid
  QueueUsage usage_;  // each queue's decayed usage, for fair share and status.usage
  // Job::evicted_in_run as the last cycle left it, by job uid: the PodGroup's status.evictedInRun
  // carries it across restarts, this until the watch delivers the applier's write.
  std::map<std::string, std::pair<ResourceVector, TimeMs>> evicted_in_run_;

  std::mutex loop_mu_;
  std::condition_variable loop_cv_;
  bool woken_ = false;
  bool stop_ = false;
  std::thread loop_;
  std::atomic<uint64_t> cycles_{0};
};

}  // namespace etna::scheduler
