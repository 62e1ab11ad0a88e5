// Typed read view of autoscaling/v2 HorizontalPodAutoscaler: the target, the replica bounds, the
// metrics with their targets (quantities in thousandths) and the scaling behavior with
// Kubernetes' defaults filled in (SetDefaults_HorizontalPodAutoscaler and
// GenerateHPAScaleUp/DownRules): scale up with no stabilization, by the larger of 4 pods or
// 100 % per 15 s; scale down after a 300 s stabilization window, by up to 100 % per 15 s.
// No metrics means CPU at 80 % utilization, as the API server defaults it.
// Thread-safety: const reads of the JSON only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/types/object.h"
#include "common/status.h"

namespace etna::api::types {

struct HpaMetricTarget {
  std::string type;  // "Utilization", "Value" or "AverageValue"
  int64_t value_milli = 0;
  int64_t average_value_milli = 0;
  int32_t average_utilization = 0;  // percent
};

struct HpaMetric {
  std::string type;       // "Resource", "ContainerResource", "Pods", "Object" or "External"
  std::string name;       // the resource (cpu, memory) or the metric's name
  std::string container;  // ContainerResource
  Json selector;          // metric.selector; null when none
  // Object: spec.metrics[].object.describedObject.
  std::string object_api_version, object_kind, object_name;
  HpaMetricTarget target;
  Json spec;  // the metric as written (status repeats its identity)
};

struct HpaScalingPolicy {
  std::string type;  // "Pods" or "Percent"
  int32_t value = 0;
  int32_t period_seconds = 0;
};

struct HpaScalingRules {
  int32_t stabilization_window_seconds = 0;
  std::string select_policy = "Max";  // "Max", "Min" or "Disabled"
  std::vector<HpaScalingPolicy> policies;
};

struct HpaBehavior {
  HpaScalingRules scale_up;
  HpaScalingRules scale_down;
};

class HorizontalPodAutoscaler : public ObjectView {
 public:
  using ObjectView::ObjectView;

  int32_t min_replicas() const {
    return static_cast<int32_t>(Integer(json(), {"spec", "minReplicas"}, 1));
  }
  int32_t max_replicas() const {
    return static_cast<int32_t>(Integer(json(), {"spec", "maxReplicas"}));
  }
  std::string target_api_version() const {
    return String(json(), {"spec", "scaleTargetRef", "apiVersion"});
  }
  std::string target_kind() const { return String(json(), {"spec", "scaleTargetRef", "kind"}); }
  std::string target_name() const { return String(json(), {"spec", "scaleTargetRef", "name"}); }
  // The metrics; InvalidArgument naming the field for one the controller cannot read.
  Result<std::vector<HpaMetric>> metrics() const;
  HpaBehavior behavior() const;
};

}  // namespace etna::api::types
