// An informer: a local cache of one collection kept current by list + watch, as client-go's.
//
// Lists, then watches from the list's resourceVersion; each event updates the cache and calls
// the handler. A watch the server ends is reopened from the last resourceVersion seen; an
// expired one (410, as an HTTP status or an ERROR event) leads to a relist, and the relist's
// differences with the cache are delivered as ADDED, MODIFIED and DELETED. Connection failures
// retry with exponential backoff. The handlers (one per reader sharing the informer, as
// client-go's shared informers) run on the informer's thread, in the order they were added.
// Thread-safety: Start/Stop from the owner; the cache accessors from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client/transport.h"

namespace etna::client {

struct InformerOptions {
  std::string path;  // the collection: "/api/v1/pods", "/apis/batch.volcano.sh/v1alpha1/jobs"
  std::string label_selector;
  std::string field_selector;
  std::chrono::milliseconds backoff_initial{100};
  std::chrono::milliseconds backoff_max{10000};
  int watch_timeout_seconds = 300;  // the server ends each watch after this; it is reopened
  // false: the cache keeps only each object's metadata name, namespace, uid and
  // resourceVersion (what a relist needs to tell deletions), for a client that keeps its own
  // converted copy; Get, List and ForEach then see only that, and so does a DELETED handler
  // called from a relist.
  bool cache_objects = true;
};

class Informer {
 public:
  // type: "ADDED", "MODIFIED" or "DELETED"; object: its latest (or last) state.
  using Handler = std::function<void(const std::string& type, const nlohmann::json& object)>;

  Informer(Transport* transport, InformerOptions options, Handler handler);
  ~Informer();  // Stop()s
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Another handler for every later event (before Start or the first SyncNow, so that it sees
  // the first list too).
  void AddHandler(Handler handler);
  // Starts the list-watch thread; a no-op when already started.
  void Start();
  void Stop();
  // True once the first list has been delivered (false on timeout or stop).
  bool WaitForSync(std::chrono::milliseconds timeout);

  // Copies of every cached object (use ForEach to read them without copying).
  std::vector<nlohmann::json> List() const;
  // Calls fn on every cached object in key order, under the cache's lock: fn must not call back
  // into this informer, and must not keep the reference.
  void ForEach(const std::function<void(const nlohmann::json&)>& fn) const;
  // ForEach over the objects of namespace `ns` only (one range of the cache).
  void ForEachInNamespace(const std::string& ns,
                          const std::function<void(const nlohmann::json&)>& fn) const;
  std::optional<nlohmann::json> Get(const std::string& ns, const std::string& name) const;
  // How often the collection was listed (1 + relists).
  int lists() const { return lists_; }
  // Brings the cache up to date on the caller's thread, for an informer that is not started (a
  // test driving a controller synchronously, Controller::SyncOnce): the first call lists, later
  // ones deliver the events since, in order, from a watch with timeoutSeconds=0. etna's server
  // ends such a watch after one batch (up to 1 MiB of events), so a larger backlog takes more
  // calls; Kubernetes' apiserver reads 0 as its default timeout, so this is for etna's server
  // only. False on failure.
  bool SyncNow();

 private:
  void Run();
  // Lists and replaces the cache; false on failure.
  bool Relist();
  // Watches from rv_ for up to `timeout_seconds`; returns true when a relist is needed
  // (expired), false to re-watch.
  bool WatchOnce(bool* failed, int timeout_seconds);
  // Stores the event's object (moved into the cache, not copied) and calls the handlers with the
  // stored one: only this informer's thread writes the cache, so it stays valid meanwhile.
  void Apply(const std::string& type, nlohmann::json object);
  std::string Query(bool watch, int timeout_seconds = 0) const;
  void SleepBackoff();

  Transport* transport_;
  InformerOptions options_;
  std::vector<Handler> handlers_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, nlohmann::json> cache_;  // "<ns>/<name>"
  std::string rv_;
  bool synced_ = false;
  bool stop_ = false;
  std::atomic<int> lists_{0};
  std::chrono::milliseconds backoff_{0};
  std::thread thread_;
};

}  // namespace etna::client
