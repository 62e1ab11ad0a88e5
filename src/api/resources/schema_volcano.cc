// Schemas of Volcano's kinds (batch.volcano.sh Job, scheduling.volcano.sh Queue and PodGroup,
// bus.volcano.sh Command, topology.volcano.sh HyperNode, flow.volcano.sh JobTemplate and JobFlow),
// the seed's QueueBinding and KEDA's ScaledObject, with the seed's extension fields that
// docs/design.md lists (marked "seed").
#include "api/resources/schema_node.h"

namespace etna::api::resources::schema {
namespace {

NodePtr NetworkTopology() {
  return Obj({{"mode", Scalar()}, {"highestTierAllowed", Scalar()}, {"highestTierName", Scalar()}});
}

NodePtr LifecyclePolicies() {
  return ArrayOf(Obj({{"event", Scalar()},
                      {"events", ArrayOf(Scalar())},
                      {"action", Scalar()},
                      {"exitCode", Scalar()},
                      {"timeout", Scalar()}}));
}

NodePtr TaskSpec() {
  return Obj({
      {"name", Scalar()},
      {"replicas", Scalar()},
      {"minAvailable", Scalar()},
      {"template", PodTemplateSpec()},
      {"policies", LifecyclePolicies()},
      {"topologyPolicy", Scalar()},
      {"maxRetry", Scalar()},
      {"dependsOn", Obj({{"name", ArrayOf(Scalar())}, {"iteration", Scalar()}})},
      {"partitionPolicy", Obj({{"totalPartitions", Scalar()},
                               {"partitionSize", Scalar()},
                               {"networkTopology", NetworkTopology()},
                               {"minPartitions", Scalar()}})},
  });
}

NodePtr JobSpec() {
  return Obj({
      {"schedulerName", Scalar()},
      {"minAvailable", Scalar()},
      {"volumes",
       ArrayOf(
           Obj({{"mountPath", Scalar()}, {"volumeClaimName", Scalar()}, {"volumeClaim", Any()}}))},
      {"tasks", ArrayOf(TaskSpec())},
      {"policies", LifecyclePolicies()},
      {"plugins", MapOf(ArrayOf(Scalar()))},
      {"runningEstimate", Scalar()},
      {"queue", Scalar()},
      {"maxRetry", Scalar()},
      {"ttlSecondsAfterFinished", Scalar()},
      {"priorityClassName", Scalar()},
      {"minSuccess", Scalar()},
      {"networkTopology", NetworkTopology()},
      {"priority", Scalar()},    // seed: an integer, used without priorityClassName
      {"minMember", Scalar()},   // seed: alias of minAvailable
      {"ttlSeconds", Scalar()},  // seed: alias of ttlSecondsAfterFinished
  });
}

NodePtr QueueSpec() {
  return Obj({
      {"weight", Scalar()},
      {"capability", StringMap()},
      {"reclaimable", Scalar()},
      // Volcano's `guarantee.resource.<name>`, or the seed's flat `guarantee.<name>`.
      {"guarantee", MapOf(Any())},
      {"deserved", StringMap()},
      {"parent", Scalar()},
      {"affinity", Any()},
      {"type", Scalar()},
      {"extendClusters", Any()},
      {"priority", Scalar()},
      {"dequeueStrategy", Scalar()},
      {"state", Scalar()},            // seed
      {"minResources", StringMap()},  // seed: the least each job must request
      {"timePolicies", ArrayOf(Obj({{"weekdays", Scalar()}, {"hours", Scalar()}}))},  // seed
      {"timePolicyAction", Scalar()},            // etna: KeepRunning (default) or Suspend
      {"allowedNamespaces", ArrayOf(Scalar())},  // Volcano's namespace-queue design
  });
}

NodePtr PodGroupSpec() {
  return Obj({
      {"minMember", Scalar()},
      {"minAvailable", Scalar()},  // seed: the gang's minimum (<= minMember), minMember when unset
      {"minTaskMember", StringMap()},
      {"queue", Scalar()},
      {"priorityClassName", Scalar()},
      {"minResources", StringMap()},
      {"networkTopology", NetworkTopology()},
      {"priority", Scalar()},         // seed: an integer
      {"ttl", Scalar()},              // seed: the longest wait unscheduled, seconds
      {"minZoneUsage", StringMap()},  // seed: the least per topology zone used
      {"runningEstimate", Scalar()},  // etna: the Job's spec.runningEstimate, copied
  });
}

NodePtr HyperNodeSpec() {
  NodePtr selector = Obj({
      {"exactMatch", Obj({{"name", Scalar()}})},
      {"regexMatch", Obj({{"pattern", Scalar()}})},
      {"labelMatch", Any()},
  });
  return Obj({
      {"tier", Scalar()},
      {"tierName", Scalar()},
      {"members", ArrayOf(Obj({{"type", Scalar()}, {"selector", selector}}))},
  });
}

}  // namespace

void AddVolcanoSchemas(Table& table) {
  table[{"batch.volcano.sh", "Job"}] = TopLevel({{"spec", JobSpec()}, {"status", Any()}});
  table[{"batch.volcano.sh", "CronJob"}] = TopLevel({
      {"spec", Obj({{"schedule", Scalar()},
                    {"timeZone", Scalar()},
                    {"startingDeadlineSeconds", Scalar()},
                    {"concurrencyPolicy", Scalar()},
                    {"suspend", Scalar()},
                    {"jobTemplate", Obj({{"metadata", ObjectMeta()}, {"spec", JobSpec()}})},
                    {"successfulJobsHistoryLimit", Scalar()},
                    {"failedJobsHistoryLimit", Scalar()}})},
      {"status", Any()},
  });
  table[{"scheduling.volcano.sh", "Queue"}] = TopLevel({{"spec", QueueSpec()}, {"status", Any()}});
  table[{"scheduling.volcano.sh", "PodGroup"}] =
      TopLevel({{"spec", PodGroupSpec()}, {"status", Any()}});
  table[{"volcano.sh", "QueueBinding"}] =
      TopLevel({{"spec", Obj({{"queue", Scalar()}, {"selector", LabelSelector()}})}});
  table[{"bus.volcano.sh", "Command"}] = TopLevel({
      {"action", Scalar()},
      {"target", Obj({{"apiVersion", Scalar()},
                      {"kind", Scalar()},
                      {"name", Scalar()},
                      {"uid", Scalar()},
                      {"controller", Scalar()},
                      {"blockOwnerDeletion", Scalar()}})},
      {"reason", Scalar()},
      {"message", Scalar()},
  });
  table[{"topology.volcano.sh", "HyperNode"}] =
      TopLevel({{"spec", HyperNodeSpec()}, {"status", Any()}});
  // flow.volcano.sh: a JobTemplate's spec is a Job's; a flow's probe and patch are Volcano's
  // fields, known here so that admission can refuse them by name (volcano_flow.cc).
  table[{"flow.volcano.sh", "JobTemplate"}] = TopLevel({{"spec", JobSpec()}, {"status", Any()}});
  NodePtr depends_on = Obj({{"targets", ArrayOf(Scalar())}, {"probe", Any()}});
  NodePtr flow = Obj({{"name", Scalar()}, {"dependsOn", depends_on}, {"patch", Any()}});
  table[{"flow.volcano.sh", "JobFlow"}] =
      TopLevel({{"spec", Obj({{"flows", ArrayOf(flow)}, {"jobRetainPolicy", Scalar()}})},
                {"status", Any()}});
}

void AddKedaSchemas(Table& table) {
  NodePtr trigger = Obj({{"type", Scalar()},
                         {"name", Scalar()},
                         {"metadata", Any()},
                         {"metricType", Scalar()},
                         {"useCachedMetrics", Scalar()},
                         {"authenticationRef", Any()}});
  NodePtr spec = Obj({
      {"scaleTargetRef", Obj({{"apiVersion", Scalar()},
                              {"kind", Scalar()},
                              {"name", Scalar()},
                              {"envSourceContainerName", Scalar()}})},
      {"pollingInterval", Scalar()},
      {"cooldownPeriod", Scalar()},
      {"initialCooldownPeriod", Scalar()},
      {"idleReplicaCount", Scalar()},
      {"minReplicaCount", Scalar()},
      {"maxReplicaCount", Scalar()},
      {"advanced",
       Obj({{"restoreToOriginalReplicaCount", Scalar()},
            {"horizontalPodAutoscalerConfig", Obj({{"name", Scalar()}, {"behavior", Any()}})},
            {"scalingModifiers", Any()}})},
      {"fallback", Any()},
      {"triggers", ArrayOf(trigger)},
  });
  table[{"keda.sh", "ScaledObject"}] = TopLevel({{"spec", spec}, {"status", Any()}});
}

}  // namespace etna::api::resources::schema
