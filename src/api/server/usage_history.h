// UsageHistory: the dashboard's "over time" charts when no Prometheus is configured
// (docs/dashboard.md): samples of each queue's allocated GPUs (its status.allocated, as the
// scheduler writes it) and of the cluster's GPUs (the nodes' allocatable), taken by the API
// server every period and kept for a bounded number of samples (6 hours at one a minute).
// Memory stays in the server: it starts empty after a restart.
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"

namespace etna::api::server {

class UsageHistory {
 public:
  struct Sample {
    TimeMs time_ms = 0;
    double cluster_gpus = 0;    // allocatable GPUs of the nodes that are Ready
    double allocated_gpus = 0;  // held by the queues, all together
    std::map<std::string, double> queue_gpus;
  };

  explicit UsageHistory(size_t capacity = 360) : capacity_(capacity) {}
  ~UsageHistory();

  // Records take() every `period` on a thread of its own until destruction (the first sample
  // at once).
  void StartSampling(std::chrono::milliseconds period, std::function<Sample()> take);

  // The sample of this moment from the stored queues and nodes (the objects as served).
  static Sample Take(TimeMs now_ms, const std::vector<nlohmann::json>& queues,
                     const std::vector<nlohmann::json>& nodes);
  void Record(Sample sample);
  // {"periodSeconds": n, "samples": [{"time": RFC 3339, "clusterGpus", "allocatedGpus", "queues":
  // {name: gpus}}]}, oldest first.
  nlohmann::json ToJson() const;
  size_t size() const;

 private:
  size_t capacity_;
  std::chrono::milliseconds period_{0};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::deque<Sample> samples_;
  std::thread sampler_;
};

}  // namespace etna::api::server
