#include "controllers/controller_metrics.h"

#include <fmt/format.h>

namespace etna::controllers {
namespace {

constexpr const char* kPodGroupPhases[] = {"inqueue", "pending", "running", "unknown", "completed"};
constexpr const char* kConditionStatuses[] = {"true", "false", "unknown"};

}  // namespace

ControllerMetrics::ControllerMetrics(metrics::Registry* r)
    : registry_(r),
      phases_(r->Counter("etna_job_phase_transitions_total", "Volcano Jobs that entered each phase",
                         {"phase"})),
      restarts_(r->Counter("etna_job_retries_total",
                           "Job restarts (RestartJob, RestartTask, RestartPod) by queue",
                           {"queue_name"})),
      node_condition_(r->Gauge("kube_node_status_condition", "The condition of a cluster node",
                               {"node", "condition", "status"})) {
  for (int i = 0; i < 5; ++i) {
    pod_groups_[i] =
        &r->Gauge(fmt::format("volcano_queue_pod_group_{}_count", kPodGroupPhases[i]),
                  fmt::format("The number of {} PodGroups in this queue", kPodGroupPhases[i]),
                  {"queue_name"});
  }
}

void ControllerMetrics::JobPhaseEntered(const std::string& phase) { phases_.Add({phase}); }

void ControllerMetrics::JobRestarted(const std::string& queue) { restarts_.Add({queue}); }

void ControllerMetrics::SetQueuePodGroups(const std::string& queue, const nlohmann::json& counts) {
  for (int i = 0; i < 5; ++i) {
    pod_groups_[i]->Set({queue}, counts.value(kPodGroupPhases[i], 0.0));
  }
}

void ControllerMetrics::RemoveQueue(const std::string& queue) {
  for (auto* family : pod_groups_) family->Remove({queue});
}

void ControllerMetrics::SetNodeReady(const std::string& node, const std::string& status) {
  std::string now = status == "True" ? "true" : status == "False" ? "false" : "unknown";
  for (const char* s : kConditionStatuses) {
    node_condition_.Set({node, "Ready", s}, now == s ? 1 : 0);
  }
}

void ControllerMetrics::RemoveNode(const std::string& node) {
  for (const char* s : kConditionStatuses) node_condition_.Remove({node, "Ready", s});
}

}  // namespace etna::controllers
