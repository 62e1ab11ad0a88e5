// GPU metrics in the Prometheus text format under DCGM-exporter's names and labels
// (DCGM_FI_DEV_GPU_UTIL, _FB_USED, _FB_FREE, _GPU_TEMP, _POWER_USAGE, _XID_ERRORS with gpu,
// UUID, device, modelName, Hostname), served by the agent at /metrics so dashboards and alert
// rules written for dcgm-exporter work unchanged. A reading the source does not have is left out.
// Thread-safety: a pure function.
#pragma once

#include <string>
#include <vector>

#include "agent/gpu/gpu_source.h"

namespace etna::agent {

std::string DcgmMetrics(const std::string& hostname, const std::vector<GpuDevice>& gpus);

}  // namespace etna::agent
