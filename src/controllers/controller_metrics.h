// ControllerMetrics: what the controllers report (docs/monitoring.md): Volcano Jobs entering
// each phase and their restarts, PodGroups per queue and phase under Volcano's names, and node
// readiness in kube-state-metrics' shape (kube_node_status_condition).
// Thread-safety: every method may be called from any controller's worker thread.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/metrics.h"

namespace etna::controllers {

class ControllerMetrics {
 public:
  // Declares the families in `registry`, which must outlive this object.
  explicit ControllerMetrics(metrics::Registry* registry);

  void JobPhaseEntered(const std::string& phase);
  void JobRestarted(const std::string& queue);
  // `counts` as the Queue status has them: {"pending": n, "running": n, "inqueue": n, ...}.
  void SetQueuePodGroups(const std::string& queue, const nlohmann::json& counts);
  void RemoveQueue(const std::string& queue);
  // `status` is the Ready condition's: "True", "False" or "Unknown" ("" counts as Unknown).
  void SetNodeReady(const std::string& node, const std::string& status);
  void RemoveNode(const std::string& node);

  metrics::Registry& registry() { return *registry_; }

 private:
  metrics::Registry* registry_;
  metrics::CounterFamily& phases_;
  metrics::CounterFamily& restarts_;
  metrics::GaugeFamily& node_condition_;
  metrics::GaugeFamily* pod_groups_[5];  // inqueue, pending, running, unknown, completed
};

}  // namespace etna::controllers
