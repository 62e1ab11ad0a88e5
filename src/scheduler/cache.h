// Cache: the scheduler's view of the cluster, fed by the informers' events. Each object is
// converted to its model record when its event arrives (convert.h); a cycle's snapshot is
// assembled from the records (indices resolved, external use summed, in-flight binds applied),
// so only changed objects are ever re-converted.
//
// In-flight binds: the daemon marks a pod Binding (node and devices) before it POSTs the
// binding; the mark lasts until the watch shows the pod bound (or gone), or the bind fails.
// A Binding task holds its node and devices in every snapshot, so no later cycle places it again
// or gives its GPUs to another pod. Bound pods hold the devices named in their annotations, so a
// restarted scheduler rebuilds the same picture from the API.
//
// Thread-safety: all methods may be called from any thread (one mutex).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/types/priority.h"
#include "common/time_zone.h"
#include "scheduler/convert.h"

namespace etna::scheduler {

// A cycle's snapshot and the keys to map its indices back to API objects.
// Where a queue with time policies stood at assembly, for its status.timeWindow.
struct QueueWindowStatus {
  bool has_policies = false;  // false: no timePolicies, no status.timeWindow
  bool open = true;
  std::string next_open;  // RFC 3339 in the scheduler's zone; "" when open or none opens
};

struct Assembled {
  sched::Snapshot snapshot;
  std::vector<std::string> task_keys;  // "<ns>/<pod>" per task
  std::vector<std::string> job_keys;   // "<ns>/<podgroup>" per job; empty for a pod's own job
  std::vector<ResourceVector> queue_allocated;   // per queue: requests of tasks holding nodes
  std::vector<QueueWindowStatus> queue_windows;  // per queue: its time window, for its status
  std::vector<StoredUsage> queue_stored_usage;   // per queue: its status.usage
};

struct CacheStats {
  uint64_t converted = 0;       // objects converted (events)
  uint64_t convert_errors = 0;  // objects skipped because they did not convert
  uint64_t assembled = 0;       // snapshots assembled
};

class Cache {
 public:
  // Why a cycle should run early (see Scheduler): pending work or freed capacity.
  using Wakeup = std::function<void()>;

  explicit Cache(std::vector<std::string> scheduler_names);

  void SetWakeup(Wakeup wakeup);

  // Informer handlers: type is "ADDED", "MODIFIED" or "DELETED".
  void OnPod(const std::string& type, const json& object);
  void OnNode(const std::string& type, const json& object);
  void OnPodGroup(const std::string& type, const json& object);
  void OnQueue(const std::string& type, const json& object);
  void OnPriorityClass(const std::string& type, const json& object);
  void OnHyperNode(const std::string& type, const json& object);
  // The seed ConfigMap's priority.conf (classes and defaultPriority), for the priorities of
  // PodGroups and of pods without one (api/types/priority.h).
  void SetPriorityConf(api::types::PriorityConf conf);

  // The zone queue time windows are judged in (the scheduler's --time-zone); UTC until set.
  void SetTimeZone(TimeZone zone);
  // A snapshot of everything cached, queue time windows resolved against `now_ms`.
  Assembled Assemble(TimeMs now_ms);

  // Marks pod `key` as being bound to `node` with `devices` (see above).
  void MarkBinding(const std::string& key, const std::string& node,
                   std::vector<sched::DeviceAllocation> devices);
  // The bind failed: the pod is pending again.
  void ForgetBinding(const std::string& key);
  size_t binds_in_flight() const;

  CacheStats stats() const;
  // The last conversion error (empty when none), for logs.
  std::string last_error() const;

 private:
  struct Binding {
    std::string node;
    std::vector<sched::DeviceAllocation> devices;
  };

  void Wake();
  void AddExternal(const PodRecord& pod, int sign);
  void RecordError(const Status& s);
  std::shared_ptr<const sched::PodSpec> InternSpec(const std::string& key, const json& pod);

  std::vector<std::string> scheduler_names_;
  mutable std::mutex mu_;
  Wakeup wakeup_;
  std::map<std::string, sched::Node> nodes_;
  std::map<std::string, PodRecord> pods_;
  std::map<std::string, JobRecord> jobs_;
  std::map<std::string, QueueRecord> queues_;
  api::types::PriorityClassTable priority_classes_;
  std::map<std::string, HyperNodeRecord> hypernodes_;
  std::unordered_map<std::string, ResourceVector> external_;  // per node: unmanaged pods
  std::unordered_map<std::string, Binding> binding_;
  std::unordered_map<std::string, std::weak_ptr<const sched::PodSpec>> specs_;
  uint64_t capacity_generation_ = 1;
  TimeZone zone_ = TimeZone::Utc();
  CacheStats stats_;
  std::string last_error_;
};

}  // namespace etna::scheduler
