// EventRecorder: writes core/v1 Events about an object (the scheduler's Scheduled,
// FailedScheduling, Preempted, Evict; the autoscaler's SuccessfulRescale, ...) from a worker
// thread so the caller never waits on them. The same
// object, reason and message again bumps the existing Event's count and lastTimestamp instead of
// creating a new one.
// Thread-safety: Record from any thread; Start/Stop from the owner.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <unordered_map>

#include "client/rest.h"
#include "common/clock.h"

namespace etna::client {

struct ObjectRef {
  std::string kind;  // "Pod", "PodGroup", "ConfigMap", "HorizontalPodAutoscaler"
  std::string api_version;
  std::string ns;
  std::string name;
  std::string uid;
};

class EventRecorder {
 public:
  EventRecorder(client::RestClient* rest, const Clock* clock, std::string component);
  ~EventRecorder();  // Stop()s

  void Start();
  // Writes what is queued, then ends the worker.
  void Stop();

  // type: "Normal" or "Warning".
  void Record(const ObjectRef& object, const std::string& type, const std::string& reason,
              const std::string& message);
  // Blocks until everything recorded so far is written (for tests).
  void Flush();

 private:
  struct Item {
    ObjectRef object;
    std::string type, reason, message;
  };
  struct Written {
    std::string ns, name;
    int32_t count = 1;
  };

  void Run();
  void Write(const Item& item);

  client::RestClient* rest_;
  const Clock* clock_;
  std::string component_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool stop_ = false;
  bool busy_ = false;
  uint64_t sequence_ = 0;
  std::unordered_map<std::string, Written> written_;  // key: uid|reason|message
  std::thread thread_;
};

}  // namespace etna::client
