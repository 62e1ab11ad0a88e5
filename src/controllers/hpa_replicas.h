// The HorizontalPodAutoscaler's replica calculator, as kube-controller-manager's
// (pkg/controller/podautoscaler/replica_calculator.go): from the target's pods and their
// metric values, the replica count one metric proposes.
//  - desired = ceil(usageRatio × pods with a metric), unchanged while |usageRatio − 1| is
//    within the tolerance (0.1).
//  - Pods being deleted or Failed are ignored; Pending pods are unready. For CPU, a pod is also
//    unready while it is not Ready, or, in its first 5 minutes (cpu initialization period),
//    until a metric was taken a whole window after it became Ready; after that a pod that went
//    unready within 30 s of starting still counts as unready.
//  - Unready pods count only when scaling up, as 0 usage; pods without a metric count as 0 on a
//    scale-up and as the target (100 % of their request for Utilization targets at most 100 %)
//    on a scale-down; when that reverses the direction or lands within the tolerance, nothing
//    changes.
//  - Object and External metrics: with a Value target, desired = ceil(usage/target × ready
//    pods) (ceil(usage/target) at zero replicas); with AverageValue, desired =
//    ceil(usage/target) over the status replicas, the usage reported per replica.
// Values are in thousandths (quantities' milli form), utilizations in percent.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace etna::controllers {

inline constexpr double kHpaTolerance = 0.1;
inline constexpr TimeMs kCpuInitializationPeriodMs = 300'000;
inline constexpr TimeMs kInitialReadinessDelayMs = 30'000;

struct PodMetricValue {
  int64_t milli = 0;
  TimeMs timestamp = 0;
  TimeMs window_ms = 0;
};
using PodMetricValues = std::map<std::string, PodMetricValue>;  // by pod name

struct ReplicaProposal {
  int32_t replicas = 0;
  int64_t usage = 0;            // the current value: utilization %, or milli
  int64_t raw_utilization = 0;  // Utilization targets: the average milli value
};

struct ReplicaCalculator {
  TimeMs now = 0;
  double tolerance = kHpaTolerance;

  // Resource metric, Utilization target (percent of the pods' requests of `resource`, in
  // `container` only when set).
  Result<ReplicaProposal> ResourceUtilization(int32_t current, int32_t target_utilization,
                                              const std::string& resource,
                                              const std::string& container,
                                              const std::vector<nlohmann::json>& pods,
                                              PodMetricValues metrics) const;
  // Resource metric with an AverageValue target, and Pods metrics (`resource` empty).
  Result<ReplicaProposal> AverageValue(int32_t current, int64_t target_milli,
                                       const std::string& resource,
                                       const std::vector<nlohmann::json>& pods,
                                       PodMetricValues metrics) const;
  // Object or External metric with a Value target; `ready_pods` are Running and Ready.
  ReplicaProposal Value(int32_t current, int64_t usage_milli, int64_t target_milli,
                        int32_t ready_pods) const;
  // Object or External metric with an AverageValue target.
  ReplicaProposal PerPod(int32_t status_replicas, int64_t usage_milli,
                         int64_t target_average_milli) const;
};

// Pods Running and Ready among `pods`.
int32_t ReadyPodCount(const std::vector<nlohmann::json>& pods);

}  // namespace etna::controllers
