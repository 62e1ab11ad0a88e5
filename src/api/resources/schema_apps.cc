// Schemas of apps/v1 Deployment, ReplicaSet and DaemonSet, of batch/v1 Job and CronJob, and of
// autoscaling/v2 HorizontalPodAutoscaler.
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
  // Every field of batch/v1's JobSpec, so those etna refuses reach admission and its message.
  NodePtr job_spec = Obj({{"parallelism", Scalar()},
                          {"completions", Scalar()},
                          {"completionMode", Scalar()},
                          {"backoffLimit", Scalar()},
                          {"backoffLimitPerIndex", Scalar()},
                          {"maxFailedIndexes", Scalar()},
                          {"activeDeadlineSeconds", Scalar()},
                          {"ttlSecondsAfterFinished", Scalar()},
                          {"suspend", Scalar()},
                          {"selector", LabelSelector()},
                          {"manualSelector", Scalar()},
                          {"template", PodTemplateSpec()},
                          {"podFailurePolicy", Any()},
                          {"successPolicy", Any()},
                          {"podReplacementPolicy", Scalar()},
                          {"managedBy", Scalar()}});
  table[{"batch", "Job"}] = TopLevel({{"spec", job_spec}, {"status", Any()}});
  table[{"batch", "CronJob"}] = TopLevel({
      {"spec", Obj({{"schedule", Scalar()},
                    {"timeZone", Scalar()},
                    {"startingDeadlineSeconds", Scalar()},
                    {"concurrencyPolicy", Scalar()},
                    {"suspend", Scalar()},
                    {"jobTemplate", Obj({{"metadata", ObjectMeta()}, {"spec", job_spec}})},
                    {"successfulJobsHistoryLimit", Scalar()},
                    {"failedJobsHistoryLimit", Scalar()}})},
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
