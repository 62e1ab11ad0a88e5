// HorizontalPodAutoscalerController: Kubernetes' HPA controller (autoscaling/v2) over the
// metrics APIs `etna server` serves. Every sync period (5 s by default; Kubernetes' is 15 s)
// each HPA:
//  - reads its target's scale subresource (Deployments and ReplicaSets) and the pods its
//    selector selects;
//  - asks each metric for a replica count (hpa_replicas.h: Resource and ContainerResource from
//    metrics.k8s.io, Pods and Object from custom.metrics.k8s.io, External from
//    external.metrics.k8s.io) and takes the largest; a metric that cannot be read counts as
//    invalid, and when all are (or some are and the rest would scale down) nothing is scaled;
//  - stabilizes the count and bounds its rate by `behavior` and by minReplicas/maxReplicas
//    (hpa_behavior.h), then writes the new count through the scale subresource;
//  - writes status (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime,
//    observedGeneration and the AbleToScale, ScalingActive and ScalingLimited conditions with
//    upstream's reasons) and Events: SuccessfulRescale ("New size: N; reason: ..."), and
//    warnings FailedGetScale, FailedGet<Type>Metric, FailedComputeMetricsReplicas,
//    FailedRescale.
// A target at 0 replicas with minReplicas > 0 is left alone (ScalingDisabled), as upstream.
// Keys: "<ns>/<name>" of HPAs. Thread-safety: as Controller; the scaling histories are
// guarded.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "controllers/controller.h"
#include "controllers/hpa_behavior.h"
#include "controllers/hpa_metrics.h"

namespace etna::controllers {

using Json = nlohmann::json;

class HorizontalPodAutoscalerController : public Controller {
 public:
  // `metrics` null: the API server's metrics APIs through this controller's client.
  HorizontalPodAutoscalerController(ControllerOptions options,
                                    std::chrono::milliseconds sync_period = std::chrono::seconds(5),
                                    std::unique_ptr<HpaMetrics> metrics = nullptr);
  ~HorizontalPodAutoscalerController() override;

 protected:
  Status Reconcile(const std::string& key) override;

 private:
  struct Proposal;
  // The pods of `ns` the target's `selector` (text form) selects, from the cache.
  Result<std::vector<Json>> SelectedPods(const std::string& ns, const std::string& selector);
  // The replica count `metric` proposes and its status entry; an error for an invalid metric
  // (its reason in `reason`).
  Result<Proposal> ComputeMetric(const api::types::HpaMetric& metric, const std::string& ns,
                                 const std::string& selector, int32_t current,
                                 int32_t status_replicas, std::string* reason);

  std::chrono::milliseconds sync_period_;
  std::unique_ptr<HpaMetrics> metrics_;
  client::Informer* hpas_;
  client::Informer* pods_;
  std::mutex mu_;
  std::map<std::string, HpaScalingHistory> histories_;  // by HPA key
};

}  // namespace etna::controllers
