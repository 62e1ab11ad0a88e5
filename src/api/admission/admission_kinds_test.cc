// Admission of metadata and of the kinds besides Job: one table of (kind, manifest, expected
// field and reason), plus defaults, updates and deletes.
#include <gtest/gtest.h>

#include <set>

#include "api/admission/admission_test_util.h"

namespace etna::api::admission {
namespace {

using testing::Describe;
using testing::FakeLookup;
using testing::Json;

struct Case {
  const char* name;
  const char* yaml;
  std::string field;  // "" = admitted
  const char* reason;
  const char* message;  // substring
};

std::vector<FieldError> AdmitYaml(const std::string& yaml, Json* out = nullptr,
                                  Operation op = Operation::kCreate, const Json* old = nullptr) {
  FakeLookup lookup;
  lookup.AddQueue("team", "Open");
  Json obj = testing::LoadYaml(yaml).at(0);
  auto info = testing::InfoOf(obj.value("apiVersion", ""), obj.value("kind", ""));
  auto errs = Admit(info, op, obj, old, lookup);
  if (out) *out = obj;
  return errs;
}

TEST(KindsAdmission, Table) {
  const std::vector<Case> cases = {
      // Metadata.
      {"missing name", "{apiVersion: v1, kind: ConfigMap, metadata: {namespace: a}}",
       "metadata.name", "FieldValueRequired", "Required value"},
      {"bad name", "{apiVersion: v1, kind: ConfigMap, metadata: {name: Foo_1, namespace: a}}",
       "metadata.name", "FieldValueInvalid", "RFC 1123 subdomain"},
      {"missing namespace", "{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}",
       "metadata.namespace", "FieldValueRequired", "Required value"},
      {"namespace on cluster kind",
       "{apiVersion: v1, kind: Node, metadata: {name: a, namespace: b}}", "metadata.namespace",
       "FieldValueForbidden", "not allowed"},
      {"bad label value",
       "{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: a, labels: {k: 'a b'}}}",
       "metadata.labels[k]", "FieldValueInvalid", "valid label"},
      {"bad label key",
       "{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: a, labels: {'a/b/c': x}}}",
       "metadata.labels[a/b/c]", "FieldValueInvalid", "qualified name"},
      {"namespace name is a label", "{apiVersion: v1, kind: Namespace, metadata: {name: a.b}}",
       "metadata.name", "FieldValueInvalid", "RFC 1123 label"},
      // A container's main process has no stdin or terminal to attach to.
      {"container stdin",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: "
       "[{name: c, image: busybox, stdin: true, tty: true}]}}",
       "spec.containers[0].stdin", "FieldValueForbidden", "kubectl exec -it"},
      // Service: headless only, ports as Kubernetes checks them.
      {"service cluster ip",
       "{apiVersion: v1, kind: Service, metadata: {name: s, namespace: a}, spec: {clusterIP: "
       "10.0.0.1, ports: [{port: 80}]}}",
       "spec.clusterIP", "FieldValueInvalid", "no virtual IPs"},
      {"service node port",
       "{apiVersion: v1, kind: Service, metadata: {name: s, namespace: a}, spec: {type: NodePort, "
       "ports: [{port: 80}]}}",
       "spec.type", "FieldValueNotSupported", "ClusterIP"},
      {"service remapped port",
       "{apiVersion: v1, kind: Service, metadata: {name: s, namespace: a}, spec: {ports: [{port: "
       "80, targetPort: 8000}]}}",
       "spec.ports[0].targetPort", "FieldValueInvalid", "must equal port 80"},
      {"service port range",
       "{apiVersion: v1, kind: Service, metadata: {name: s, namespace: a}, spec: {ports: [{port: "
       "0}]}}",
       "spec.ports[0].port", "FieldValueInvalid", "between 1 and 65535"},
      {"service unnamed ports",
       "{apiVersion: v1, kind: Service, metadata: {name: s, namespace: a}, spec: {ports: [{port: "
       "80}, {name: b, port: 81}]}}",
       "spec.ports[0].name", "FieldValueRequired", "Required value"},
      {"service named target port",
       "{apiVersion: v1, kind: Service, metadata: {name: s, namespace: a}, spec: {selector: {app: "
       "web}, ports: [{port: 8000, targetPort: http}]}}",
       "", "", ""},
      // A pod's topologySpreadConstraints.
      {"spread maxSkew",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: "
       "c, image: i}], topologySpreadConstraints: [{maxSkew: 0, topologyKey: zone, "
       "whenUnsatisfiable: DoNotSchedule}]}}",
       "spec.topologySpreadConstraints[0].maxSkew", "FieldValueInvalid", "greater than zero"},
      {"spread when",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: "
       "c, image: i}], topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, "
       "whenUnsatisfiable: Sometimes}]}}",
       "spec.topologySpreadConstraints[0].whenUnsatisfiable", "FieldValueNotSupported",
       "DoNotSchedule"},
      {"spread minDomains soft",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: "
       "c, image: i}], topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, minDomains: 2, "
       "whenUnsatisfiable: ScheduleAnyway}]}}",
       "spec.topologySpreadConstraints[0].minDomains", "FieldValueInvalid",
       "whenUnsatisfiable=DoNotSchedule"},
      {"spread ok",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: "
       "c, image: i}], topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, "
       "whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]}}",
       "", "", ""},
      // Queue.
      {"queue weight",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{weight: -1}}",
       "spec.weight", "FieldValueInvalid", "between 1 and 65535"},
      {"queue guarantee above capability",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{capability: {nvidia.com/gpu: 8}, guarantee: {resource: {nvidia.com/gpu: 10}}}}",
       "spec.guarantee.resource[nvidia.com/gpu]", "FieldValueInvalid",
       "must be less than or equal to spec.capability[nvidia.com/gpu] of 8"},
      {"queue deserved above capability",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{capability: {cpu: '4'}, deserved: {cpu: 5}}}",
       "spec.deserved[cpu]", "FieldValueInvalid", "spec.capability[cpu]"},
      {"queue bad quantity",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{capability: {memory: 8Gb}}}",
       "spec.capability[memory]", "FieldValueInvalid", "quantities must match"},
      {"queue state",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{state: Paused}}",
       "spec.state", "FieldValueNotSupported",
       "supported values: \"Open\", \"Closing\", \"Closed\""},
      {"queue state closing",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{state: Closing}}",
       "", "", ""},
      {"queue parent missing",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{parent: nope}}",
       "spec.parent", "FieldValueInvalid", "parent queue not found"},
      {"queue parent root",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{parent: root}}",
       "", "", ""},
      {"queue weekdays",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{timePolicies: [{weekdays: '0-8', hours: '9-18'}]}}",
       "spec.timePolicies[0].weekdays", "FieldValueInvalid", "Monday"},
      {"queue hours",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{timePolicies: [{hours: '9'}]}}",
       "spec.timePolicies[0].hours", "FieldValueInvalid", "hour ranges"},
      {"queue time policy key",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{timePolicies: [{hours: '9-18', zone: UTC}]}}",
       "spec.timePolicies[0].zone", "FieldValueNotSupported", "\"weekdays\", \"hours\""},
      {"queue hours single hour in a list",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{timePolicies: [{hours: '9-18,20'}]}}",
       "spec.timePolicies[0].hours", "FieldValueInvalid", "hour ranges"},
      {"queue time policy action",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{timePolicies: [{hours: '9-18'}], timePolicyAction: Stop}}",
       "spec.timePolicyAction", "FieldValueNotSupported", "\"KeepRunning\", \"Suspend\""},
      {"queue time policy action suspend",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{timePolicies: [{weekdays: '1-5', hours: '9-18'}], timePolicyAction: Suspend}}",
       "", "", ""},
      {"queue allowed namespace not a name",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{allowedNamespaces: [team-a, Team_B]}}",
       "spec.allowedNamespaces[1]", "FieldValueInvalid", "RFC 1123 label"},
      {"queue allowed namespaces",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{allowedNamespaces: [team-a, '*']}}",
       "", "", ""},
      {"queue guarantee conflict",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
       "{guarantee: {resource: {cpu: 1}, cpu: 2}}}",
       "spec.guarantee[cpu]", "FieldValueInvalid", "conflicts"},
      {"queue hierarchy",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q, annotations: "
       "{volcano.sh/hierarchy: root/a, volcano.sh/hierarchy-weights: '1'}}}",
       "metadata.annotations[volcano.sh/hierarchy-weights]", "FieldValueInvalid", "levels"},
      // PodGroup.
      {"pg minMember",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a}, spec: {minMember: -1}}",
       "spec.minMember", "FieldValueInvalid", "greater than or equal to 0"},
      {"pg minAvailable",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a}, spec: {minMember: 2, minAvailable: 3}}",
       "spec.minAvailable", "FieldValueInvalid", "spec.minMember (2)"},
      {"pg closed queue",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a}, spec: {queue: closed}}",
       "spec.queue", "FieldValueForbidden", "PodGroup to queue with state `Open`"},
      {"pg closing queue",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a}, spec: {queue: closing}}",
       "spec.queue", "FieldValueForbidden",
       "can only submit PodGroup to queue with state `Open`, queue `closing` status is `Closing`"},
      {"pg task member",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a}, spec: {minTaskMember: {w: -2}}}",
       "spec.minTaskMember[w]", "FieldValueInvalid", "-2"},
      {"pg ttl",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a}, spec: {ttl: -1}}",
       "spec.ttl", "FieldValueInvalid", "-1"},
      {"pg minZoneUsage",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a}, spec: {minZoneUsage: {nvidia.com/gpu: x}}}",
       "spec.minZoneUsage[nvidia.com/gpu]", "FieldValueInvalid", "quantities"},
      {"pg runningEstimate",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a}, spec: {runningEstimate: soon}}",
       "spec.runningEstimate", "FieldValueInvalid", "duration such as"},
      {"pg sla waiting time",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a, annotations: {volcano.sh/sla-waiting-time: later}}, spec: {}}",
       "metadata.annotations[volcano.sh/sla-waiting-time]", "FieldValueInvalid", "duration"},
      {"pg runningEstimate ok",
       "{apiVersion: scheduling.volcano.sh/v1beta1, kind: PodGroup, metadata: {name: p, namespace: "
       "a}, spec: {runningEstimate: 2h30m}}",
       "", "", ""},
      // Pod.
      {"pod last checkpoint",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a, annotations: "
       "{etna.io/last-checkpoint: yesterday}}, spec: {containers: [{name: c, image: i}]}}",
       "metadata.annotations[etna.io/last-checkpoint]", "FieldValueInvalid", "RFC 3339"},
      {"pod last checkpoint ok",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a, annotations: "
       "{etna.io/last-checkpoint: '2026-01-02T15:04:05Z'}}, spec: {containers: [{name: c, image: "
       "i}]}}",
       "", "", ""},
      {"pod no containers",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: []}}",
       "spec.containers", "FieldValueRequired", "Required value"},
      {"pod duplicate container",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: "
       "c, image: i}, {name: c, image: i}]}}",
       "spec.containers[1].name", "FieldValueDuplicate", "\"c\""},
      {"pod restart policy",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {restartPolicy: "
       "Sometimes, containers: [{name: c, image: i}]}}",
       "spec.restartPolicy", "FieldValueNotSupported", "\"Always\", \"OnFailure\", \"Never\""},
      {"pod gpu request without limit",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: "
       "c, image: i, resources: {requests: {nvidia.com/gpu: 1}}}]}}",
       "spec.containers[0].resources.requests[nvidia.com/gpu]", "FieldValueForbidden",
       "Limit must be set"},
      {"pod unknown resource",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: "
       "c, image: i, resources: {limits: {gpu: 1}}}]}}",
       "spec.containers[0].resources.limits[gpu]", "FieldValueInvalid", "standard resource"},
      {"pod fieldRef",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: "
       "c, image: i, env: [{name: X, valueFrom: {fieldRef: {fieldPath: spec.foo}}}]}]}}",
       "spec.containers[0].env[0].valueFrom.fieldRef.fieldPath", "FieldValueNotSupported",
       "\"spec.foo\""},
      {"pod mount unknown volume",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: [{name: "
       "c, image: i, volumeMounts: [{name: data, mountPath: /d}]}]}}",
       "spec.containers[0].volumeMounts[0].name", "FieldValueNotFound", "\"data\""},
      {"pod toleration",
       "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {tolerations: [{key: "
       "gpu, operator: Maybe}], containers: [{name: c, image: i}]}}",
       "spec.tolerations[0].operator", "FieldValueNotSupported", "\"Equal\", \"Exists\""},
      // Others.
      {"priority class too high",
       "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: "
       "2000000000}",
       "value", "FieldValueInvalid", "must be less than or equal to 1000000000"},
      {"priority class system prefix",
       "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: system-mine}, "
       "value: 10}",
       "metadata.name", "FieldValueForbidden", "reserved"},
      {"priority class ok",
       "{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: "
       "100, globalDefault: false}",
       "", "", ""},
      {"deployment selector",
       "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: a}, spec: "
       "{selector: {matchLabels: {app: x}}, template: {metadata: {labels: {app: y}}, spec: "
       "{containers: [{name: c, image: i}]}}}}",
       "spec.template.metadata.labels", "FieldValueInvalid", "does not match"},
      {"deployment both limits zero",
       "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: a}, spec: "
       "{selector: {matchLabels: {app: x}}, strategy: {rollingUpdate: {maxSurge: 0, "
       "maxUnavailable: '0%'}}, template: {metadata: {labels: {app: x}}, spec: "
       "{containers: [{name: c, image: i}]}}}}",
       "spec.strategy.rollingUpdate.maxUnavailable", "FieldValueInvalid", "may not be 0"},
      {"deployment bad percent",
       "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: a}, spec: "
       "{selector: {matchLabels: {app: x}}, strategy: {rollingUpdate: {maxSurge: 'ten'}}, "
       "template: {metadata: {labels: {app: x}}, spec: {containers: [{name: c, image: i}]}}}}",
       "spec.strategy.rollingUpdate.maxSurge", "FieldValueInvalid", "percent string"},
      {"recreate with rollingUpdate",
       "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: a}, spec: "
       "{selector: {matchLabels: {app: x}}, strategy: {type: Recreate, rollingUpdate: {}}, "
       "template: {metadata: {labels: {app: x}}, spec: {containers: [{name: c, image: i}]}}}}",
       "spec.strategy.rollingUpdate", "FieldValueForbidden", "Recreate"},
      {"replicaset negative replicas",
       "{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: r, namespace: a}, spec: "
       "{replicas: -1, selector: {matchLabels: {app: x}}, template: {metadata: {labels: {app: "
       "x}}, spec: {containers: [{name: c, image: i}]}}}}",
       "spec.replicas", "FieldValueInvalid", "greater than or equal to 0"},
      {"daemonset without selector (the seed's MPS daemon)",
       "{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: m, namespace: a}, spec: "
       "{template: {spec: {containers: [{name: c, image: i}]}}}}",
       "spec.selector", "FieldValueRequired", "Required value"},
      {"daemonset update strategy",
       "{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: m, namespace: a}, spec: "
       "{selector: {matchLabels: {app: x}}, updateStrategy: {type: Always}, template: {metadata: "
       "{labels: {app: x}}, spec: {containers: [{name: c, image: i}]}}}}",
       "spec.updateStrategy.type", "FieldValueNotSupported", "\"OnDelete\""},
      {"hpa max below min",
       "{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: h, namespace: "
       "a}, spec: {scaleTargetRef: {kind: Deployment, name: d}, minReplicas: 3, maxReplicas: 2}}",
       "spec.maxReplicas", "FieldValueInvalid", "minReplicas"},
      {"hpa target type",
       "{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: h, namespace: "
       "a}, spec: {scaleTargetRef: {kind: Deployment, name: d}, maxReplicas: 2, metrics: [{type: "
       "Resource, resource: {name: cpu, target: {type: Percent}}}]}}",
       "spec.metrics[0].resource.target.type", "FieldValueNotSupported", "\"Utilization\""},
      {"command action",
       "{apiVersion: bus.volcano.sh/v1alpha1, kind: Command, metadata: {name: c, namespace: a}, "
       "action: KillJob, target: {kind: Job, name: j}}",
       "action", "FieldValueNotSupported", "\"KillJob\""},
      {"command queue action",
       "{apiVersion: bus.volcano.sh/v1alpha1, kind: Command, metadata: {name: c, namespace: a}, "
       "action: CloseQueue, target: {kind: Queue, name: q}}",
       "", "", ""},
      {"hypernode two selectors",
       "{apiVersion: topology.volcano.sh/v1alpha1, kind: HyperNode, metadata: {name: s0}, spec: "
       "{tier: 1, members: [{type: Node, selector: {exactMatch: {name: n}, regexMatch: {pattern: "
       "'n.*'}}}]}}",
       "spec.members[0].selector", "FieldValueInvalid", "exactly one"},
      {"hypernode regex",
       "{apiVersion: topology.volcano.sh/v1alpha1, kind: HyperNode, metadata: {name: s0}, spec: "
       "{tier: 1, members: [{type: Node, selector: {regexMatch: {pattern: 'n[('}}}]}}",
       "spec.members[0].selector.regexMatch.pattern", "FieldValueInvalid", "regular expression"},
      {"configmap key",
       "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: a}, data: {'a b': x}}",
       "data[a b]", "FieldValueInvalid", "config key"},
      {"secret base64",
       "{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: a}, data: {k: 'not "
       "base64!'}}",
       "data[k]", "FieldValueInvalid", "base64"},
      {"lease duration",
       "{apiVersion: coordination.k8s.io/v1, kind: Lease, metadata: {name: l, namespace: a}, spec: "
       "{leaseDurationSeconds: 0}}",
       "spec.leaseDurationSeconds", "FieldValueInvalid", "greater than 0"},
      {"node taint effect",
       "{apiVersion: v1, kind: Node, metadata: {name: n}, spec: {taints: [{key: gpu, effect: "
       "Never}]}}",
       "spec.taints[0].effect", "FieldValueNotSupported", "\"NoSchedule\""},
      {"event type",
       "{apiVersion: v1, kind: Event, metadata: {name: e, namespace: a}, type: Error}", "type",
       "FieldValueNotSupported", "\"Normal\", \"Warning\""},
      {"queuebinding needs queue",
       "{apiVersion: volcano.sh/v1beta1, kind: QueueBinding, metadata: {name: b}, spec: {selector: "
       "{matchLabels: {a: b}}}}",
       "spec.queue", "FieldValueRequired", "Required value"},
  };
  for (const Case& c : cases) {
    testing::ExpectOutcome(AdmitYaml(c.yaml), c.name, c.field, c.reason, c.message);
  }
}

// The DaemonSet controller places its pods on their nodes itself, so nothing hands them GPUs:
// a DaemonSet asking for one is refused by the field's name.
TEST(AdmissionKindsTest, DaemonSetMayNotRequestDevices) {
  const std::string base =
      "{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: m, namespace: a}, spec: "
      "{selector: {matchLabels: {app: x}}, template: {metadata: {labels: {app: x}}, spec: "
      "{containers: [{name: c, image: i, resources: {requests: {cpu: 100m, memory: 64Mi}, "
      "limits: {";
  Json admitted;
  EXPECT_TRUE(AdmitYaml(base + "cpu: 500m}}}]}}}}", &admitted).empty());
  EXPECT_EQ(admitted["spec"]["updateStrategy"]["type"], "RollingUpdate");
  EXPECT_EQ(admitted["spec"]["updateStrategy"]["rollingUpdate"]["maxUnavailable"], 1);
  EXPECT_FALSE(admitted["spec"].contains("revisionHistoryLimit"));
  auto history = AdmitYaml(
      "{apiVersion: apps/v1, kind: DaemonSet, metadata: {name: m, namespace: a}, spec: "
      "{revisionHistoryLimit: 3, selector: {matchLabels: {app: x}}, template: {metadata: "
      "{labels: {app: x}}, spec: {containers: [{name: c, image: i}]}}}}");
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].field, "spec.revisionHistoryLimit");
  auto errs = AdmitYaml(base + "nvidia.com/gpu: 1}}}]}}}}");
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].field, "spec.template.spec.containers[0].resources.limits[nvidia.com/gpu]");
  EXPECT_NE(errs[0].message.find("cpu, memory and ephemeral-storage only"), std::string::npos);
}

// The seed's ScaledObject with its apiVersion added still lacks the query; etna's refusals name
// what it cannot run.
TEST(AdmissionKindsTest, ScaledObjectNeedsAQueryAndRefusesWhatEtnaCannotRun) {
  const std::string seed =
      "{apiVersion: keda.sh/v1alpha1, kind: ScaledObject, metadata: {name: inference-scaler, "
      "namespace: a}, spec: {scaleTargetRef: {name: inference-deployment}, minReplicaCount: 1, "
      "maxReplicaCount: 10, triggers: [{type: prometheus, metricType: AverageValue, metadata: "
      "{serverAddress: 'http://prometheus:9090', metricName: gpu_utilization_avg, threshold: "
      "'70'";
  auto errs = AdmitYaml(seed + "}}]}}");
  ASSERT_EQ(errs.size(), 1u) << Describe(errs);
  EXPECT_EQ(errs[0].field, "spec.triggers[0].metadata.query");
  EXPECT_NE(errs[0].message.find("PromQL query"), std::string::npos);
  EXPECT_TRUE(AdmitYaml(seed + ", query: 'avg(DCGM_FI_DEV_GPU_UTIL)'}}]}}").empty());
  auto cpu = AdmitYaml(
      "{apiVersion: keda.sh/v1alpha1, kind: ScaledObject, metadata: {name: s, namespace: a}, "
      "spec: {scaleTargetRef: {name: d}, fallback: {failureThreshold: 3, replicas: 2}, "
      "minReplicaCount: 5, maxReplicaCount: 2, triggers: [{type: cpu, metadata: {value: '50'}}]}}");
  std::set<std::string> fields;
  for (const auto& e : cpu) fields.insert(e.field);
  EXPECT_EQ(fields, (std::set<std::string>{"spec.maxReplicaCount", "spec.fallback",
                                           "spec.triggers[0].type"}))
      << Describe(cpu);
  auto target = AdmitYaml(
      "{apiVersion: keda.sh/v1alpha1, kind: ScaledObject, metadata: {name: s, namespace: a}, "
      "spec: {scaleTargetRef: {apiVersion: argoproj.io/v1alpha1, kind: Deployment, name: d}, "
      "minReplicaCount: 2, idleReplicaCount: 1, triggers: [{type: prometheus, metadata: "
      "{serverAddress: 'http://p:9090', query: up, threshold: '1'}}]}}");
  fields.clear();
  for (const auto& e : target) fields.insert(e.field);
  EXPECT_EQ(fields,
            (std::set<std::string>{"spec.scaleTargetRef.apiVersion", "spec.idleReplicaCount"}))
      << Describe(target);
}

// What the HPA controller reads is checked as autoscaling/v2 checks it; a metric selector the
// custom metrics cannot honour is refused by name.
TEST(AdmissionKindsTest, HpaBehaviorAndMetricSelectorsAreChecked) {
  const std::string head =
      "{apiVersion: autoscaling/v2, kind: HorizontalPodAutoscaler, metadata: {name: h, "
      "namespace: a}, spec: {scaleTargetRef: {kind: Deployment, name: d}, maxReplicas: 3, ";
  auto errs = AdmitYaml(head +
                        "behavior: {scaleUp: {selectPolicy: Most, policies: [{type: Pod, value: 0, "
                        "periodSeconds: 4000}]}, scaleDown: {stabilizationWindowSeconds: -1}}}}");
  std::set<std::string> fields;
  for (const auto& e : errs) fields.insert(e.field);
  EXPECT_EQ(fields, (std::set<std::string>{"spec.behavior.scaleUp.selectPolicy",
                                           "spec.behavior.scaleUp.policies[0].type",
                                           "spec.behavior.scaleUp.policies[0].value",
                                           "spec.behavior.scaleUp.policies[0].periodSeconds",
                                           "spec.behavior.scaleDown.stabilizationWindowSeconds"}))
      << Describe(errs);
  auto pods = AdmitYaml(head +
                        "metrics: [{type: Pods, pods: {metric: {name: gpu_utilization, selector: "
                        "{matchLabels: {x: y}}}, target: {type: AverageValue, averageValue: "
                        "'70'}}}]}}");
  ASSERT_EQ(pods.size(), 1u) << Describe(pods);
  EXPECT_EQ(pods[0].field, "spec.metrics[0].pods.metric.selector");
  EXPECT_TRUE(AdmitYaml(head +
                        "behavior: {scaleDown: {stabilizationWindowSeconds: 10, policies: [{type: "
                        "Pods, value: 1, periodSeconds: 60}]}}}}")
                  .empty());
}

// Kubernetes' rolling defaults: 25 % surge and unavailability.
TEST(AdmissionKindsTest, DeploymentRollingUpdateDefaultsToAQuarter) {
  Json d;
  EXPECT_TRUE(AdmitYaml("{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: "
                        "a}, spec: {selector: {matchLabels: {app: x}}, template: {metadata: "
                        "{labels: {app: x}}, spec: {containers: [{name: c, image: i}]}}}}",
                        &d)
                  .empty());
  EXPECT_EQ(d["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%");
  EXPECT_EQ(d["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"], "25%");
  EXPECT_EQ(d["spec"]["replicas"], 1);
}

TEST(KindsAdmission, ServiceDefaultsToHeadless) {
  Json svc;
  EXPECT_TRUE(AdmitYaml("{apiVersion: v1, kind: Service, metadata: {name: s, namespace: a}, "
                        "spec: {selector: {app: web}, ports: [{port: 80}]}}",
                        &svc)
                  .empty());
  EXPECT_EQ(svc["spec"]["clusterIP"], "None");
  EXPECT_EQ(svc["spec"]["type"], "ClusterIP");
  EXPECT_EQ(svc["spec"]["ports"][0]["targetPort"], 80);
  EXPECT_EQ(svc["spec"]["ports"][0]["protocol"], "TCP");
}

TEST(KindsAdmission, AnnotationsTotalSize) {
  Json cm = {
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata",
       {{"name", "c"}, {"namespace", "a"}, {"annotations", {{"big", std::string(300000, 'x')}}}}}};
  FakeLookup lookup;
  auto errs = Admit(testing::InfoOf("v1", "ConfigMap"), Operation::kCreate, cm, nullptr, lookup);
  const FieldError* e = testing::FindError(errs, "metadata.annotations");
  ASSERT_NE(e, nullptr) << Describe(errs);
  EXPECT_EQ(e->reason, "FieldValueTooLong");
}

TEST(KindsAdmission, QueueDefaults) {
  Json q;
  auto errs = AdmitYaml(
      "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: {name: q}, spec: "
      "{weight: 0}}",
      &q);
  ASSERT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(q["spec"]["weight"], 1);
  EXPECT_EQ(q["spec"]["reclaimable"], true);
  EXPECT_EQ(q["spec"]["state"], "Open");
}

TEST(KindsAdmission, PodDefaultsAndUpdates) {
  Json pod;
  auto errs = AdmitYaml(
      "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: "
      "[{name: c, image: 'img:1', resources: {limits: {nvidia.com/gpu: 1, cpu: 2}}}]}}",
      &pod);
  ASSERT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(pod["spec"]["restartPolicy"], "Always");
  EXPECT_EQ(pod["spec"]["schedulerName"], "default-scheduler");
  EXPECT_EQ(pod["spec"]["containers"][0]["imagePullPolicy"], "IfNotPresent");
  EXPECT_EQ(pod["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"], 1);

  FakeLookup lookup;
  auto info = testing::InfoOf("v1", "Pod");
  Json image = pod;
  image["spec"]["containers"][0]["image"] = "img:2";
  image["spec"]["tolerations"] = {{{"key", "gpu"}, {"operator", "Exists"}}};
  EXPECT_TRUE(Admit(info, Operation::kUpdate, image, &pod, lookup).empty());

  Json res = pod;
  res["spec"]["containers"][0]["resources"]["limits"]["cpu"] = 4;
  errs = Admit(info, Operation::kUpdate, res, &pod, lookup);
  ASSERT_EQ(errs.size(), 1u) << Describe(errs);
  EXPECT_EQ(errs[0].field, "spec");
  EXPECT_EQ(errs[0].reason, "FieldValueForbidden");
  EXPECT_NE(errs[0].message.find("pod updates may not change fields"), std::string::npos);
}

TEST(KindsAdmission, SecretStringDataIsEncoded) {
  Json s;
  auto errs = AdmitYaml(
      "{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: a}, stringData: {k: hello}}",
      &s);
  ASSERT_TRUE(errs.empty()) << Describe(errs);
  EXPECT_EQ(s["data"]["k"], "aGVsbG8=");
  EXPECT_FALSE(s.contains("stringData"));
  EXPECT_EQ(s["type"], "Opaque");
}

TEST(KindsAdmission, PriorityClassValueImmutable) {
  Json old;
  ASSERT_TRUE(AdmitYaml("{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: "
                        "high}, value: 100}",
                        &old)
                  .empty());
  Json now = old;
  now["value"] = 50;
  FakeLookup lookup;
  auto errs = Admit(testing::InfoOf("scheduling.k8s.io/v1", "PriorityClass"), Operation::kUpdate,
                    now, &old, lookup);
  ASSERT_NE(testing::FindError(errs, "value"), nullptr) << Describe(errs);
}

TEST(KindsAdmission, ProtectedDeletes) {
  auto queue = testing::InfoOf("scheduling.volcano.sh/v1beta1", "Queue");
  auto errs = AdmitDelete(queue, {{"metadata", {{"name", "default"}}}});
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].reason, "FieldValueForbidden");
  EXPECT_NE(errs[0].message.find("`default` queue can not be deleted"), std::string::npos);
  EXPECT_FALSE(AdmitDelete(queue, {{"metadata", {{"name", "root"}}}}).empty());
  EXPECT_TRUE(AdmitDelete(queue, {{"metadata", {{"name", "team"}}}}).empty());
  auto ns = testing::InfoOf("v1", "Namespace");
  EXPECT_FALSE(AdmitDelete(ns, {{"metadata", {{"name", "kube-system"}}}}).empty());
  EXPECT_TRUE(AdmitDelete(ns, {{"metadata", {{"name", "team"}}}}).empty());
}

TEST(KindsAdmission, MalformedShapesNeverThrow) {
  FakeLookup lookup;
  for (const char* yaml : {"{apiVersion: batch.volcano.sh/v1alpha1, kind: Job, metadata: {name: j, "
                           "namespace: a}, spec: {tasks: [1, {template: 3}], policies: x}}",
                           "{apiVersion: batch.volcano.sh/v1alpha1, kind: Job, metadata: {name: j, "
                           "namespace: a}, spec: 7}",
                           "{apiVersion: scheduling.volcano.sh/v1beta1, kind: Queue, metadata: "
                           "{name: q}, spec: {guarantee: 5, capability: [1]}}",
                           "{apiVersion: v1, kind: Pod, metadata: [], spec: {containers: [[]]}}",
                           "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: "
                           "a}, spec: {selector: 1, template: {spec: {containers: {}}}}}"}) {
    Json obj = testing::LoadYaml(yaml).at(0);
    auto info = testing::InfoOf(obj["apiVersion"], obj["kind"]);
    std::vector<FieldError> errs;
    EXPECT_NO_THROW(errs = Admit(info, Operation::kCreate, obj, nullptr, lookup)) << yaml;
    EXPECT_FALSE(errs.empty()) << yaml;
  }
}

}  // namespace
}  // namespace etna::api::admission
