// Loaders for the openb trace (Alibaba cluster-trace-gpu-v2023, the FGD paper's workload).
//
// Node lists: sn, cpu_milli, memory_mib, gpu, model (CPU-only nodes have gpu 0, no model).
// Pod lists: name, cpu_milli, memory_mib, num_gpu, gpu_milli[, gpu_spec, ...]; columns are found
// by header name (creation_time, scheduled_time, deletion_time and qos are read when present),
// other extra columns are ignored, gpu_spec may be absent (multigpu files) and "nan"
// or empty means no GPU-model constraint. Bad input is an InvalidArgument naming file:line and
// the column.
//
// Thread-safety: plain functions over values.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace etna::sim {

struct TraceNode {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int32_t gpus = 0;
  std::string model;
};

struct TracePod {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  int32_t num_gpu = 0;
  int32_t gpu_milli = 0;  // per GPU: < 1000 only when num_gpu == 1 (a share)
  std::string gpu_spec;   // allowed models "A|B"; empty: any
  // The optional columns the time-aware replay reads: seconds from the trace's start (-1 when
  // absent) and the QoS class (LS, BE, Burstable, Guaranteed; "" when absent).
  int64_t creation_s = -1;
  int64_t scheduled_s = -1;
  int64_t deletion_s = -1;
  std::string qos;
  int64_t TotalGpuMilli() const { return int64_t{num_gpu} * gpu_milli; }
};

// `label` names the input in errors (usually the path).
Result<std::vector<TraceNode>> ParseNodes(const std::string& text, const std::string& label);
Result<std::vector<TracePod>> ParsePods(const std::string& text, const std::string& label);
Result<std::vector<TraceNode>> LoadNodes(const std::string& path);
Result<std::vector<TracePod>> LoadPods(const std::string& path);

}  // namespace etna::sim
