// ControllerManager: runs etna's controllers together (Volcano's job, queue, podgroup, CronJob,
// JobFlow and JobTemplate; node lifecycle; Kubernetes' replicaset, deployment, daemonset,
// batch Job and CronJob; hpa and KEDA), on one informer per collection (SharedInformers), for
// `etna controllers` and in-process for `etna dev`.
// Thread-safety: Start/Stop (or CreateControllers/SyncUntilIdle) from the owner thread.
#pragma once

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "controllers/controller.h"
#include "controllers/shared_informers.h"

namespace etna::controllers {

struct ControllerManagerOptions {
  client::TransportFactory factory;
  const Clock* clock = nullptr;  // nullptr: the system clock
  // Which controllers run: any of AllControllers(); empty: all.
  std::set<std::string> controllers;
  std::chrono::milliseconds resync_period{30000};
  // Worker threads of the job controller (Volcano's --worker-threads).
  int job_workers = 16;
  // Added to a Lease's leaseDurationSeconds before its node is declared lost.
  std::chrono::milliseconds lease_grace{5000};
  // How often each HorizontalPodAutoscaler is synced (Kubernetes: 15 s).
  std::chrono::milliseconds hpa_sync_period{5000};
  // Where the controllers' metrics go (`etna dev` shares one registry); null: the manager's own.
  metrics::Registry* metrics = nullptr;
};

class ControllerManager {
 public:
  explicit ControllerManager(ControllerManagerOptions options);
  ~ControllerManager();

  // Starts every controller; InvalidArgument for an unknown controller name, Unavailable when
  // the informers could not list within `sync_timeout` (the controllers keep running and
  // retrying).
  Status Start(std::chrono::milliseconds sync_timeout = std::chrono::seconds(20));
  // A leader-elected standby's half of Start: makes the controllers and fills their informers'
  // caches (kept current by their watches), starting no worker, so that Start on taking the
  // lead reconciles at once instead of listing everything first. Errors as Start.
  Status WarmUp(std::chrono::milliseconds sync_timeout = std::chrono::seconds(20));
  void Stop();
  // Every controller's queue is idle (for tests).
  bool Idle();
  // The options' errors (an unknown controller name, no workers), naming the flag.
  Status ValidateOptions() const;
  // The synchronous seam for tests, instead of Start: makes the controllers without starting
  // them (InvalidArgument as Start); SyncUntilIdle then drives them all on the caller's thread.
  Status CreateControllers();
  bool SyncUntilIdle();
  static const std::vector<std::string>& AllControllers();
  metrics::Registry& metrics_registry() { return metrics_.registry(); }
  // Every controller started and its informers synced.
  bool ready() const { return ready_; }
  // WarmUp (or Start) has filled the informers' caches.
  bool warm() const { return warm_; }
  // How many informers the controllers share (one per collection they read).
  size_t informer_count() const { return informers_ ? informers_->size() : 0; }

 private:
  ControllerManagerOptions options_;
  metrics::Registry own_registry_;
  ControllerMetrics metrics_;
  std::atomic<bool> ready_{false};
  std::atomic<bool> warm_{false};
  std::unique_ptr<SharedInformers> informers_;  // stopped before the controllers go
  std::vector<std::unique_ptr<Controller>> controllers_;
};

}  // namespace etna::controllers
