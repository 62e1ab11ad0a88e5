// The metrics etna serves per pod from its agents' readings (the kubelet-shaped summary of
// agent/stats_summary.h), by name, for custom.metrics.k8s.io (pods/<name>, and objects that
// select pods) and external.metrics.k8s.io (api/server/metrics_api.cc); docs/autoscaling.md
// lists them:
//   gpu_utilization           % — the average utilization of the GPUs (or MIG instances, or
//                             shares: the device's) the pod was given; DCGM_FI_DEV_GPU_UTIL
//                             is the same
//   gpu_memory_used_bytes     bytes of framebuffer used on them (a share: its part)
//   gpu_memory_utilization    % of their framebuffer used
//   DCGM_FI_DEV_FB_USED       the same as gpu_memory_used_bytes, in MiB (dcgm-exporter's unit)
//   cpu_usage                 cores (a quantity: "250m")
//   memory_working_set_bytes  bytes
// A name may end in "_avg" (the seed's gpu_utilization_avg): the same per-pod value, named for
// the average an HPA AverageValue target takes over the pods.
// Values are in thousandths of the unit (the quantity's milli form).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/types/fields.h"

namespace etna::api::types {

// The names above without "_avg" (what discovery lists), then the seed's gpu_utilization_avg.
const std::vector<std::string>& PodMetricNames();
bool IsPodMetric(std::string_view name);
// The value of `name` for one pod of the summary ({"podRef", "cpu", "memory", "containers"});
// nullopt when the pod has no reading for it (a GPU metric of a pod without GPUs).
std::optional<int64_t> PodMetricMilli(std::string_view name, const Json& pod_summary);
// A milli value as a Kubernetes quantity: "90", "67500m".
std::string MilliQuantity(int64_t milli);

}  // namespace etna::api::types
