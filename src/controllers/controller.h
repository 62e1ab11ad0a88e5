// Controller: the base of etna's controllers, as client-go's controller pattern. Informers (each
// on its own transport from the factory, or shared by the process's controllers:
// shared_informers.h) keep caches of the objects a controller reads and turn their events into
// keys on a WorkQueue; one worker thread reconciles a key at a time from the
// caches (several workers when ControllerOptions::workers > 1: the WorkQueue hands a key to
// one worker at a time, so different keys reconcile in parallel and one key never does).
// Reconcile is level-triggered: it reads the current state and converges, so it is
// idempotent and safe after a restart with half-done work (object names are deterministic, so
// AlreadyExists and NotFound answers are fine). A failed reconcile (Conflict, Unavailable, ...)
// is retried with backoff; every key of the primary informer is re-queued each resync period.
// Tests may drive a controller synchronously instead (SyncOnce, SyncUntilIdle): no thread runs,
// the informers catch up on the caller's thread and the keys are reconciled there.
// Thread-safety: Start/Stop/WaitForSync from the owner; informer handlers run on the informers'
// threads and only enqueue keys; Reconcile runs on the worker threads (or, driven
// synchronously, on the caller's), for different keys at once when there are several workers:
// a controller with workers > 1 guards the state its reconciles share.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "client/event_recorder.h"
#include "client/informer.h"
#include "client/rest.h"
#include "client/transport.h"
#include "common/clock.h"
#include "controllers/controller_metrics.h"
#include "controllers/work_queue.h"

namespace etna::controllers {

class SharedInformers;

struct ControllerOptions {
  client::TransportFactory factory;
  const Clock* clock = nullptr;  // nullptr: the system clock
  std::chrono::milliseconds resync_period{30000};
  std::chrono::milliseconds backoff_initial{20};
  std::chrono::milliseconds backoff_max{5000};
  ControllerMetrics* metrics = nullptr;  // nullptr: the controller's own
  // One informer per collection shared by the controllers of a process (the manager's);
  // null: the controller's own. Outlives the controller.
  SharedInformers* informers = nullptr;
  // Worker threads reconciling different keys at once (client-go's workers; Volcano's
  // --worker-threads); each blocks on its API writes, so more workers batch more of them into
  // one group commit.
  int workers = 1;
};

// "<ns>/<name>" of an object ("/<name>" when cluster-scoped), as the informer keys its cache.
std::string KeyOf(const nlohmann::json& object);
// Splits a key into namespace and name.
std::pair<std::string, std::string> SplitKey(const std::string& key);

class Controller {
 public:
  Controller(std::string name, ControllerOptions options);
  virtual ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  const std::string& name() const { return name_; }
  // Starts the informers, waits for their first lists, then starts the worker. Returns false
  // when the informers did not sync within `sync_timeout` (the controller keeps trying).
  bool Start(std::chrono::milliseconds sync_timeout = std::chrono::seconds(20));
  // Start in two steps: the informers (a leader-elected standby keeps its caches warm), and
  // later the workers (on taking the lead). Start is the two in a row.
  bool StartInformers(std::chrono::milliseconds sync_timeout);
  void StartWorkers();
  void Stop();
  // No key due and none being processed.
  bool Idle() { return queue_.Idle(); }
  WorkQueue& queue() { return queue_; }

  // The synchronous seam for tests, used instead of Start (client-go's controller tests call
  // syncHandler(key) the same way): brings every informer up to date on the caller's thread
  // (Informer::SyncNow: each event since the last call reaches the handlers, in order), then
  // reconciles every due key as the worker does; keys added with a delay (AddAfter) and the
  // keys that failed are due at once rather than after their delay or backoff. Returns how many
  // reconciles it ran. Never while started.
  int SyncOnce();

 protected:
  using Handler = client::Informer::Handler;
  // Registers an informer of `path` (before Start). `handler` maps events to keys to enqueue;
  // the default enqueues the object's own key. The first informer registered is the primary
  // one: each resync period its handler is called with type "RESYNC" for every object.
  // The resync calls it under the informer's lock: it must only map the object to keys.
  client::Informer* Watch(const std::string& path, Handler handler = nullptr);
  // Reconciles one key; a non-OK status retries it with backoff.
  virtual Status Reconcile(const std::string& key) = 0;

  client::RestClient& rest() { return rest_; }
  const Clock& clock() const { return *clock_; }

 public:
  // Writes the controller's Events (Normal/Warning, reason, message) about objects.
  client::EventRecorder& events() { return events_; }

 protected:
  ControllerMetrics& metrics() { return *metrics_; }

 private:
  // Worker `index`; worker 0 also re-queues the primary informer's keys each resync period.
  void RunWorker(int index);
  // Reconciles `key` (taken from the queue); requeues it with backoff when that failed.
  void ProcessKey(const std::string& key);

  std::string name_;
  ControllerOptions options_;
  SystemClock system_clock_;
  const Clock* clock_;
  metrics::Registry own_registry_;
  std::unique_ptr<ControllerMetrics> own_metrics_;
  ControllerMetrics* metrics_;
  std::unique_ptr<client::Transport> transport_;
  client::RestClient rest_;
  client::EventRecorder events_;  // its Events, as the controller's name
  WorkQueue queue_;
  std::vector<std::unique_ptr<client::Transport>> informer_transports_;
  std::vector<std::unique_ptr<client::Informer>> own_informers_;
  std::vector<client::Informer*> informers_;  // own or shared, in Watch order
  Handler primary_handler_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

// Runs SyncOnce on each of `controllers` in turn until a round reconciles nothing (every
// controller has converged on the API's state); false when they were still busy after
// `max_rounds` rounds.
bool SyncUntilIdle(const std::vector<Controller*>& controllers, int max_rounds = 100);

}  // namespace etna::controllers
