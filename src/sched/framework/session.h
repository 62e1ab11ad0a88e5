// Session: one scheduling cycle over a snapshot (Volcano's session.go).
//
// A session is the composition of one class per concern, each in its own file:
//   PluginDispatch (session_plugins.h)        extension-point registration and combination
//   SessionAccounting (session_accounting.h)  the model and its derived accounting, read-only
//                                             to everyone but Statement
//   SessionOutcomes (session_outcomes.h)      the cycle's decision bookkeeping
//   session_reservations.h                    reserved capacity on nodes
// The Session itself builds the plugins, runs the actions, chooses devices (session_devices.cc)
// and closes the cycle into a Decision. Actions read the model through the const accessors and
// change placements only through a Statement.
//
// Thread-safety: none. A session lives on one thread for one cycle.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sched/framework/conf.h"
#include "sched/framework/decision.h"
#include "sched/framework/fit_errors.h"
#include "sched/framework/plugin.h"
#include "sched/framework/policies.h"
#include "sched/framework/session_accounting.h"
#include "sched/framework/session_outcomes.h"
#include "sched/framework/session_plugins.h"
#include "sched/model/snapshot.h"

namespace etna::sched {

class Registry;

class Session : public PluginDispatch, public SessionAccounting, public SessionOutcomes {
 public:
  Session(Snapshot snapshot, const SchedulerConf& conf, const Registry& registry);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Builds the plugins and lets each register its callbacks.
  Status Open();
  // Runs the configured actions in order.
  Status RunActions();
  // Closes plugins and produces the decision (job phases, conditions, backoff, reasons).
  Decision Close();
  // A monotonic clock in milliseconds: each plugin's open and close and each action is timed
  // into Decision::timings. Never read to decide anything.
  void SetTimer(std::function<double()> monotonic_ms) { timer_ = std::move(monotonic_ms); }

  const SchedulerConf& conf() const { return conf_; }
  BackoffPolicy& backoff_policy() { return backoff_policy_; }
  PreemptionPolicy& preemption_policy() { return preemption_policy_; }
  ReservationPolicy& reservation_policy() { return reservation_policy_; }

  // Per queue: allocated plus the pending tasks of its jobs that are not completed.
  std::vector<ResourceVector> QueueRequests() const;
  // The TaskOrder plugins, then task index.
  int CompareTasks(const Task& l, const Task& r) const;
  // Pending tasks of a job in task order.
  std::vector<TaskIdx> PendingTasks(const Job& job) const;

  // ---- Devices (session_devices.cc) ----
  // Chooses concrete GPU devices for a task on a node: the registered device choosers first,
  // then the default. Empty when the task asks for no GPUs; nullopt when the node's devices
  // cannot hold it.
  std::optional<std::vector<DeviceAllocation>> ChooseDevices(const Task& t, const Node& n) const;
  // Whether ChooseDevices would succeed. Cheap for the default chooser.
  bool DevicesAvailable(const Task& t, const Node& n) const;
  // The same, with the chooser's reason when it does not fit (empty when it gave none).
  bool DevicesAvailable(const Task& t, const Node& n, std::string* reason) const;
  // The default: whole GPUs inside the tightest NVLink domain that holds them all; a fraction
  // of a GPU on the fullest device with room.
  static std::optional<std::vector<DeviceAllocation>> DefaultDevices(const Task& t, const Node& n);
  static bool DefaultDevicesAvailable(const Task& t, const Node& n);
  // Whether the node can hold the task's request against `available` (Idle or FutureIdle),
  // including device-level GPU fit and capacity reserved for other jobs; fills `errors` with
  // the resources that ran out. `check_devices`: also require concrete free devices (for
  // binding now, not pipelining).
  bool ResourceFits(const Task& t, const Node& n, const ResourceVector& available,
                    bool check_devices, FitErrors* errors) const;

  // ---- Incremental use (simulators, framework/incremental.h) ----
  // Appends a job or a pending task to the open session, keeping the accounting in step, so that
  // one session can place a stream of arrivals without copying the snapshot per arrival. The
  // task's `job` must already exist. Indices stay valid; references into tasks() may not.
  JobIdx AppendJob(Job job);
  using SessionAccounting::AbandonTask;
  using SessionAccounting::AppendTask;

 private:
  // Fills the decision's queue reports.
  void ReportQueues();

  const SchedulerConf& conf_;
  const Registry& registry_;
  std::vector<std::unique_ptr<Plugin>> plugins_;
  BackoffPolicy backoff_policy_;
  PreemptionPolicy preemption_policy_;
  ReservationPolicy reservation_policy_;
  std::function<double()> timer_;
};

}  // namespace etna::sched
