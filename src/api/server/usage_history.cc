#include "api/server/usage_history.h"

#include "api/types/node.h"
#include "api/types/queue.h"
#include "common/resource.h"
#include "common/time.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

// The nvidia.com/gpu quantity of a resource list ("8", "500m", 8); 0 when absent or malformed.
double Gpus(const json& list) {
  if (!list.is_object() || !list.contains(kGpuResourceName)) return 0;
  const json& v = list[kGpuResourceName];
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return 0;
  auto milli = ParseQuantity(v.get_ref<const std::string&>(), ResourceUnit::kMilli);
  return milli.ok() ? static_cast<double>(*milli) / 1000.0 : 0;
}

}  // namespace

UsageHistory::Sample UsageHistory::Take(TimeMs now_ms, const std::vector<json>& queues,
                                        const std::vector<json>& nodes) {
  Sample s;
  s.time_ms = now_ms;
  for (const json& object : nodes) {
    types::Node node(object);
    if (node.IsReady() && !node.unschedulable()) s.cluster_gpus += Gpus(node.allocatable());
  }
  for (const json& object : queues) {
    types::Queue queue(object);
    double gpus = Gpus(queue.allocated());
    s.queue_gpus[queue.name()] = gpus;
    s.allocated_gpus += gpus;
  }
  return s;
}

UsageHistory::~UsageHistory() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (sampler_.joinable()) sampler_.join();
}

void UsageHistory::StartSampling(std::chrono::milliseconds period, std::function<Sample()> take) {
  period_ = period;
  sampler_ = std::thread([this, period, take = std::move(take)] {
    for (;;) {
      Record(take());
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, period, [this] { return stop_; })) return;
    }
  });
}

void UsageHistory::Record(Sample sample) {
  std::lock_guard lock(mu_);
  samples_.push_back(std::move(sample));
  while (samples_.size() > capacity_) samples_.pop_front();
}

json UsageHistory::ToJson() const {
  std::lock_guard lock(mu_);
  json samples = json::array();
  for (const Sample& s : samples_) {
    samples.push_back({{"time", FormatRfc3339(s.time_ms)},
                       {"clusterGpus", s.cluster_gpus},
                       {"allocatedGpus", s.allocated_gpus},
                       {"queues", s.queue_gpus}});
  }
  return {{"periodSeconds", period_.count() / 1000}, {"samples", std::move(samples)}};
}

size_t UsageHistory::size() const {
  std::lock_guard lock(mu_);
  return samples_.size();
}

}  // namespace etna::api::server
