#include "api/server/usage_history.h"

#include <cstdlib>

#include "common/time.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr char kGpu[] = "nvidia.com/gpu";

// A GPU count as stored ("8", 8); 0 when absent or not a number.
double Gpus(const json& map) {
  if (!map.is_object() || !map.contains(kGpu)) return 0;
  const json& v = map[kGpu];
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return 0;
  const std::string& text = v.get_ref<const std::string&>();
  char* end = nullptr;
  double n = std::strtod(text.c_str(), &end);
  return end != text.c_str() && *end == '\0' ? n : 0;
}

bool Ready(const json& node) {
  if (node.value("/spec/unschedulable"_json_pointer, false)) return false;
  for (const json& c : node.value("/status/conditions"_json_pointer, json::array())) {
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

}  // namespace

UsageHistory::Sample UsageHistory::Take(TimeMs now_ms, const std::vector<json>& queues,
                                        const std::vector<json>& nodes) {
  Sample s;
  s.time_ms = now_ms;
  for (const json& node : nodes) {
    if (Ready(node)) s.cluster_gpus += Gpus(node.value("/status/allocatable"_json_pointer, json()));
  }
  for (const json& q : queues) {
    double gpus = Gpus(q.value("/status/allocated"_json_pointer, json()));
    s.queue_gpus[q.value("/metadata/name"_json_pointer, std::string())] = gpus;
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
