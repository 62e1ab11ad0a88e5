// Schemas of apps/v1 Deployment, ReplicaSet and DaemonSet, and of autoscaling/v2
// HorizontalPodAutoscaler.
#include "api/resources/schema_node.h"

namespace etna::api::resources::schema {

void AddAppsSchemas(Table& table) {
  table[{"apps", "Deployment"}] = TopLevel({
      {"spec",
       Obj({{"replicas", Scalar()},
            {"selector", LabelSelector()},
            {"template", PodTemplateSpec()},
            {"strategy",
             Obj({{"type", Scalar()},
                  {"rollingUpdate", Obj({{"maxUnavailable", Scalar()}, {"maxSurge", Scalar()}})}})},
            {"minReadySeconds", Scalar()},
            {"revisionHistoryLimit", Scalar()},
            {"paused", Scalar()},
            {"progressDeadlineSeconds", Scalar()}})},
      {"status", Any()},
  });
  table[{"apps", "ReplicaSet"}] = TopLevel({
      {"spec", Obj({{"replicas", Scalar()},
                    {"selector", LabelSelector()},
                    {"template", PodTemplateSpec()},
                    {"minReadySeconds", Scalar()}})},
      {"status", Any()},
  });
  table[{"apps", "DaemonSet"}] = TopLevel({
      {"spec",
       Obj({{"selector", LabelSelector()},
            {"template", PodTemplateSpec()},
            {"updateStrategy",
             Obj({{"type", Scalar()},
                  {"rollingUpdate", Obj({{"maxUnavailable", Scalar()}, {"maxSurge", Scalar()}})}})},
            {"minReadySeconds", Scalar()},
            {"revisionHistoryLimit", Scalar()}})},
      {"status", Any()},
  });
  table[{"autoscaling", "HorizontalPodAutoscaler"}] = TopLevel({
      {"spec", Obj({{"scaleTargetRef",
                     Obj({{"apiVersion", Scalar()}, {"kind", Scalar()}, {"name", Scalar()}})},
                    {"minReplicas", Scalar()},
                    {"maxReplicas", Scalar()},
                    {"metrics", Any()},
                    {"behavior", Any()}})},
      {"status", Any()},
  });
}

}  // namespace etna::api::resources::schema
