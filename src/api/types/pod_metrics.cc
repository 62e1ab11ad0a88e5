#include "api/types/pod_metrics.h"

#include <string>

namespace etna::api::types {
namespace {

std::string_view Canonical(std::string_view name) {
  constexpr std::string_view kAvg = "_avg";
  if (name.size() > kAvg.size() && name.substr(name.size() - kAvg.size()) == kAvg) {
    name.remove_suffix(kAvg.size());
  }
  if (name == "DCGM_FI_DEV_GPU_UTIL") return "gpu_utilization";
  return name;
}

int64_t Int(const Json& j, const char* key) {
  const Json* v = j.is_object() && j.contains(key) ? &j[key] : nullptr;
  return v && v->is_number() ? v->get<int64_t>() : 0;
}

}  // namespace

const std::vector<std::string>& PodMetricNames() {
  static const std::vector<std::string> names = {
      "gpu_utilization",          "gpu_memory_used_bytes", "gpu_memory_utilization",
      "DCGM_FI_DEV_GPU_UTIL",     "DCGM_FI_DEV_FB_USED",   "cpu_usage",
      "memory_working_set_bytes", "gpu_utilization_avg"};
  return names;
}

bool IsPodMetric(std::string_view name) {
  std::string_view c = Canonical(name);
  for (const std::string& n : PodMetricNames()) {
    if (n == c) return true;
  }
  return false;
}

std::optional<int64_t> PodMetricMilli(std::string_view name, const Json& pod) {
  std::string_view c = Canonical(name);
  if (c == "cpu_usage") return Int(pod.value("cpu", Json::object()), "usageNanoCores") / 1'000'000;
  if (c == "memory_working_set_bytes") {
    return Int(pod.value("memory", Json::object()), "workingSetBytes") * 1000;
  }
  int64_t devices = 0, duty = 0, used = 0, total = 0;
  for (const Json& container : pod.value("containers", Json::array())) {
    for (const Json& a : container.value("accelerators", Json::array())) {
      ++devices;
      duty += Int(a, "dutyCycle");
      used += Int(a, "memoryUsed");
      total += Int(a, "memoryTotal");
    }
  }
  if (devices == 0) return std::nullopt;
  if (c == "gpu_utilization") return duty * 1000 / devices;
  if (c == "gpu_memory_used_bytes") return used * 1000;
  if (c == "DCGM_FI_DEV_FB_USED") return used * 1000 / (1024 * 1024);
  if (c == "gpu_memory_utilization") {
    return total > 0 ? static_cast<int64_t>(static_cast<double>(used) * 100'000.0 / total) : 0;
  }
  return std::nullopt;
}

std::string MilliQuantity(int64_t milli) {
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

}  // namespace etna::api::types
