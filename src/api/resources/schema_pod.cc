// core/v1 PodSpec and PodTemplateSpec, complete enough for real manifests: containers in full,
// volume sources, affinity and security contexts free-form.
#include "api/resources/schema_node.h"

namespace etna::api::resources::schema {
namespace {

NodePtr KeySelector() {  // configMapKeyRef, secretKeyRef
  return Obj({{"name", Scalar()}, {"key", Scalar()}, {"optional", Scalar()}});
}

NodePtr EnvVar() {
  return Obj({
      {"name", Scalar()},
      {"value", Scalar()},
      {"valueFrom",
       Obj({
           {"fieldRef", Obj({{"apiVersion", Scalar()}, {"fieldPath", Scalar()}})},
           {"resourceFieldRef",
            Obj({{"containerName", Scalar()}, {"resource", Scalar()}, {"divisor", Scalar()}})},
           {"configMapKeyRef", KeySelector()},
           {"secretKeyRef", KeySelector()},
           {"fileKeyRef", Any()},
       })},
  });
}

NodePtr EnvFromSource() {
  NodePtr ref = Obj({{"name", Scalar()}, {"optional", Scalar()}});
  return Obj({{"prefix", Scalar()}, {"configMapRef", ref}, {"secretRef", ref}});
}

NodePtr ProbeHandlers(FieldList more) {
  NodePtr handlers = Obj({
      {"exec", Obj({{"command", ArrayOf(Scalar())}})},
      {"httpGet", Obj({{"path", Scalar()},
                       {"port", Scalar()},
                       {"host", Scalar()},
                       {"scheme", Scalar()},
                       {"httpHeaders", ArrayOf(Obj({{"name", Scalar()}, {"value", Scalar()}}))}})},
      {"tcpSocket", Obj({{"port", Scalar()}, {"host", Scalar()}})},
  });
  return Extend(handlers, more);
}

NodePtr Probe() {
  return ProbeHandlers({
      {"grpc", Obj({{"port", Scalar()}, {"service", Scalar()}})},
      {"initialDelaySeconds", Scalar()},
      {"timeoutSeconds", Scalar()},
      {"periodSeconds", Scalar()},
      {"successThreshold", Scalar()},
      {"failureThreshold", Scalar()},
      {"terminationGracePeriodSeconds", Scalar()},
  });
}

NodePtr Lifecycle() {
  NodePtr handler = ProbeHandlers({{"sleep", Obj({{"seconds", Scalar()}})}});
  return Obj({{"postStart", handler}, {"preStop", handler}, {"stopSignal", Scalar()}});
}

NodePtr Container() {
  return Obj({
      {"name", Scalar()},
      {"image", Scalar()},
      {"command", ArrayOf(Scalar())},
      {"args", ArrayOf(Scalar())},
      {"workingDir", Scalar()},
      {"ports", ArrayOf(Obj({{"name", Scalar()},
                             {"containerPort", Scalar()},
                             {"protocol", Scalar()},
                             {"hostPort", Scalar()},
                             {"hostIP", Scalar()}}))},
      {"envFrom", ArrayOf(EnvFromSource())},
      {"env", ArrayOf(EnvVar())},
      {"resources", ResourceRequirements()},
      {"resizePolicy", ArrayOf(Obj({{"resourceName", Scalar()}, {"restartPolicy", Scalar()}}))},
      {"restartPolicy", Scalar()},
      {"volumeMounts", ArrayOf(Obj({{"name", Scalar()},
                                    {"mountPath", Scalar()},
                                    {"readOnly", Scalar()},
                                    {"recursiveReadOnly", Scalar()},
                                    {"subPath", Scalar()},
                                    {"subPathExpr", Scalar()},
                                    {"mountPropagation", Scalar()}}))},
      {"volumeDevices", ArrayOf(Obj({{"name", Scalar()}, {"devicePath", Scalar()}}))},
      {"livenessProbe", Probe()},
      {"readinessProbe", Probe()},
      {"startupProbe", Probe()},
      {"lifecycle", Lifecycle()},
      {"terminationMessagePath", Scalar()},
      {"terminationMessagePolicy", Scalar()},
      {"imagePullPolicy", Scalar()},
      {"securityContext", Any()},
      {"stdin", Scalar()},
      {"stdinOnce", Scalar()},
      {"tty", Scalar()},
  });
}

// A volume: its name and one volume source, each source free-form.
NodePtr Volume() {
  Fields fields{{"name", Scalar()}};
  for (const char* source : {"hostPath",
                             "emptyDir",
                             "gcePersistentDisk",
                             "awsElasticBlockStore",
                             "gitRepo",
                             "secret",
                             "nfs",
                             "iscsi",
                             "glusterfs",
                             "persistentVolumeClaim",
                             "rbd",
                             "flexVolume",
                             "cinder",
                             "cephfs",
                             "flocker",
                             "downwardAPI",
                             "fc",
                             "azureFile",
                             "configMap",
                             "vsphereVolume",
                             "quobyte",
                             "azureDisk",
                             "photonPersistentDisk",
                             "projected",
                             "portworxVolume",
                             "scaleIO",
                             "storageos",
                             "csi",
                             "ephemeral",
                             "image"}) {
    fields.emplace(source, Any());
  }
  return Obj(std::move(fields));
}

NodePtr NameRef() { return Obj({{"name", Scalar()}}); }

NodePtr BuildPodSpec() {
  NodePtr container = Container();
  return Obj({
      {"volumes", ArrayOf(Volume())},
      {"initContainers", ArrayOf(container)},
      {"containers", ArrayOf(container)},
      {"ephemeralContainers", ArrayOf(Extend(container, {{"targetContainerName", Scalar()}}))},
      {"restartPolicy", Scalar()},
      {"terminationGracePeriodSeconds", Scalar()},
      {"activeDeadlineSeconds", Scalar()},
      {"dnsPolicy", Scalar()},
      {"nodeSelector", StringMap()},
      {"serviceAccountName", Scalar()},
      {"serviceAccount", Scalar()},
      {"automountServiceAccountToken", Scalar()},
      {"nodeName", Scalar()},
      {"hostNetwork", Scalar()},
      {"hostPID", Scalar()},
      {"hostIPC", Scalar()},
      {"shareProcessNamespace", Scalar()},
      {"securityContext", Any()},
      {"imagePullSecrets", ArrayOf(NameRef())},
      {"hostname", Scalar()},
      {"subdomain", Scalar()},
      {"affinity", Any()},
      {"schedulerName", Scalar()},
      {"tolerations", ArrayOf(Obj({{"key", Scalar()},
                                   {"operator", Scalar()},
                                   {"value", Scalar()},
                                   {"effect", Scalar()},
                                   {"tolerationSeconds", Scalar()}}))},
      {"hostAliases", ArrayOf(Obj({{"ip", Scalar()}, {"hostnames", ArrayOf(Scalar())}}))},
      {"priorityClassName", Scalar()},
      {"priority", Scalar()},
      {"dnsConfig", Obj({{"nameservers", ArrayOf(Scalar())},
                         {"searches", ArrayOf(Scalar())},
                         {"options", ArrayOf(Obj({{"name", Scalar()}, {"value", Scalar()}}))}})},
      {"readinessGates", ArrayOf(Obj({{"conditionType", Scalar()}}))},
      {"runtimeClassName", Scalar()},
      {"enableServiceLinks", Scalar()},
      {"preemptionPolicy", Scalar()},
      {"overhead", StringMap()},
      {"topologySpreadConstraints", Any()},
      {"setHostnameAsFQDN", Scalar()},
      {"os", NameRef()},
      {"hostUsers", Scalar()},
      {"schedulingGates", ArrayOf(NameRef())},
      {"resourceClaims", ArrayOf(Obj({{"name", Scalar()},
                                      {"source", Any()},
                                      {"resourceClaimName", Scalar()},
                                      {"resourceClaimTemplateName", Scalar()}}))},
      {"resources", ResourceRequirements()},
  });
}

}  // namespace

NodePtr ResourceRequirements() {
  static const NodePtr node = Obj({
      {"limits", StringMap()},
      {"requests", StringMap()},
      {"claims", ArrayOf(Obj({{"name", Scalar()}, {"request", Scalar()}}))},
  });
  return node;
}

NodePtr PodSpec() {
  static const NodePtr node = BuildPodSpec();
  return node;
}

NodePtr PodTemplateSpec() {
  static const NodePtr node = Obj({{"metadata", ObjectMeta()}, {"spec", PodSpec()}});
  return node;
}

}  // namespace etna::api::resources::schema
