// ScaledObjectController: what KEDA's operator does for a ScaledObject (keda.sh/v1alpha1) with
// prometheus triggers. Every pollingInterval (30 s) it:
//  - queries each trigger's Prometheus (net/http/prometheus.h) and records the values, each
//    trigger's health and the Ready/Active conditions in the ScaledObject's status; the values
//    (status.metricValues, by the external metric names "s<i>-prometheus") are what the
//    external metrics API answers for selector scaledobject.keda.sh/name=<name>
//    (api/server/metrics_api.h);
//  - owns the HPA "keda-hpa-<name>" (min max(minReplicaCount, 1), max maxReplicaCount, one
//    External metric per trigger with the trigger's threshold as AverageValue or Value, and
//    advanced.horizontalPodAutoscalerConfig.behavior), which scales the target from 1 to N;
//  - scales the target itself between 0 and 1 as KEDA does: when a trigger's value is above its
//    activationThreshold (0) a target at 0 goes to max(minReplicaCount, 1); when none is for
//    cooldownPeriod (300 s) since the last active moment, a target goes to 0 when
//    minReplicaCount is 0 or idleReplicaCount (0, the only value KEDA supports) is set; below
//    minReplicaCount it goes to minReplicaCount otherwise.
// A Prometheus that cannot be reached or answers an error marks the trigger Failure, Ready
// False with the message, a Warning Event (KEDAScalerFailed), and the HPA's metric unavailable
// (FailedGetExternalMetric) — the target keeps its size. Events: KEDAScaleTargetActivated,
// KEDAScaleTargetDeactivated, KEDAScalerFailed.
// Keys: "<ns>/<name>" of ScaledObjects. Thread-safety: as Controller (one worker).
#pragma once

#include <memory>
#include <string>

#include "controllers/controller.h"
#include "net/http/prometheus.h"

namespace etna::controllers {

using Json = nlohmann::json;
using net::http::PrometheusQuery;
using net::http::PrometheusValue;

// Where a trigger's value comes from: a Prometheus over HTTP, or a test's fake.
class TriggerSource {
 public:
  virtual ~TriggerSource() = default;
  virtual Result<double> Query(const PrometheusQuery& query) = 0;
};

// Over HTTP(S) (net/http/prometheus.h), read as KEDA reads a trigger's answer.
class HttpPrometheus final : public TriggerSource {
 public:
  Result<double> Query(const PrometheusQuery& query) override {
    ETNA_ASSIGN_OR_RETURN(std::string body, net::http::QueryPrometheus(query));
    return PrometheusValue(body, query);
  }
};

// The label that ties a KEDA HPA's external metric to its ScaledObject.
inline constexpr char kScaledObjectNameLabel[] = "scaledobject.keda.sh/name";

class ScaledObjectController : public Controller {
 public:
  // `source` null: HTTP.
  explicit ScaledObjectController(ControllerOptions options,
                                  std::unique_ptr<TriggerSource> source = nullptr);
  ~ScaledObjectController() override;

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  // Creates or updates the HPA keda-hpa-<name> to match `so`.
  Status EnsureHpa(const Json& so);

  std::unique_ptr<TriggerSource> source_;
  client::Informer* scaled_objects_;
  client::Informer* hpas_;
};

}  // namespace etna::controllers
