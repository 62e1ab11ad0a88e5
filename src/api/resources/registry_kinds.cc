#include "api/resources/registry_kinds.h"

#include <string>
#include <utility>

#include "api/types/pod_metrics.h"
#include "common/strings.h"

namespace etna::api::resources::internal {

namespace {

constexpr char kNameDescription[] =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name "
    "automatically. Name is primarily intended for creation idempotence and configuration "
    "definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
constexpr char kAgeDescription[] =
    "CreationTimestamp is a timestamp representing the server time when this object was "
    "created. It is not guaranteed to be set in happens-before order across separate "
    "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
    "UTC.";

const std::vector<std::string>& AllVerbs() {
  static const std::vector<std::string> kVerbs = {"create", "delete", "deletecollection", "get",
                                                  "list",   "patch",  "update",           "watch"};
  return kVerbs;
}

PrinterColumn NameColumn() { return {"Name", "string", "name", kNameDescription, 0, ""}; }
// A built-in printer's Age: a string cell computed by the printer.
PrinterColumn AgeColumn() { return {"Age", "string", "", kAgeDescription, 0, ""}; }
// A CRD's date column over metadata.creationTimestamp, spelled as the CRD spells it.
PrinterColumn CrdAge(std::string name) {
  return {std::move(name), "date", "", kAgeDescription, 0, ".metadata.creationTimestamp"};
}
PrinterColumn Col(std::string name, std::string type, std::string description, int priority = 0) {
  return {std::move(name), std::move(type), "", std::move(description), priority, ""};
}
PrinterColumn CrdCol(std::string name, std::string type, std::string json_path, int priority = 0,
                     std::string description = "") {
  return {std::move(name),        std::move(type), "",
          std::move(description), priority,        std::move(json_path)};
}

struct Spec {
  std::string group;
  std::string version;
  std::string kind;
  std::string plural;
  std::vector<std::string> short_names;
  bool namespaced = true;
  bool has_status = false;
  bool built_in = false;
};

ResourceInfo Make(Spec s, std::vector<PrinterColumn> columns,
                  std::vector<std::string> field_selectors = {}) {
  ResourceInfo r;
  r.group = std::move(s.group);
  r.version = std::move(s.version);
  r.singular = Lower(s.kind);
  r.kind = std::move(s.kind);
  r.plural = std::move(s.plural);
  r.short_names = std::move(s.short_names);
  r.namespaced = s.namespaced;
  r.has_status = s.has_status;
  r.built_in = s.built_in;
  r.verbs = AllVerbs();
  r.columns = std::move(columns);
  r.field_selectors = std::move(field_selectors);
  return r;
}

void AddCore(std::vector<ResourceInfo>& out) {
  out.push_back(
      Make({"", "v1", "Namespace", "namespaces", {"ns"}, false, true, true},
           {NameColumn(), Col("Status", "string", "The status of the namespace"), AgeColumn()},
           {"status.phase"}));
  ResourceInfo node = Make(
      {"", "v1", "Node", "nodes", {"no"}, false, true, true},
      {NameColumn(), Col("Status", "string", "The status of the node"),
       Col("Roles", "string", "The roles of the node"), AgeColumn(),
       Col("Version", "string", "Kubelet Version reported by the node."),
       Col("Internal-IP", "string", "List of internal IPs reported by the node.", 1),
       Col("External-IP", "string", "List of external IPs reported by the node.", 1),
       Col("OS-Image", "string", "OS Image reported by the node from /etc/os-release.", 1),
       Col("Kernel-Version", "string", "Kernel Version reported by the node.", 1),
       Col("Container-Runtime", "string", "Container Runtime Version reported by the node.", 1)},
      {"spec.unschedulable"});
  node.subresources = {"proxy"};  // GET of the agent's read-only endpoints (gpus, metrics)
  out.push_back(std::move(node));
  ResourceInfo pod = Make(
      {"", "v1", "Pod", "pods", {"po"}, true, true, true},
      {NameColumn(),
       Col("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
       Col("Status", "string", "The aggregate status of the containers in this pod."),
       Col("Restarts", "string",
           "The number of times the containers in this pod have been restarted and when the "
           "last container in this pod has restarted."),
       AgeColumn(), Col("IP", "string", "IP address allocated to the pod.", 1),
       Col("Node", "string", "Name of the node the pod is assigned to.", 1),
       Col("Nominated Node", "string",
           "Name of the node where the pod is nominated to run when it preempts others.", 1),
       Col("Readiness Gates", "string", "The readiness gates of the pod.", 1)},
      {"spec.nodeName", "spec.schedulerName", "spec.restartPolicy", "spec.serviceAccountName",
       "status.phase", "status.podIP", "status.nominatedNodeName"});
  pod.categories = {"all"};
  pod.subresources = {"log", "binding", "eviction", "exec", "attach", "portforward"};
  out.push_back(std::move(pod));
  // kubectl's event printer: no leading Name column; Name is last and wide-only.
  PrinterColumn event_name = NameColumn();
  event_name.priority = 1;
  out.push_back(Make(
      {"", "v1", "Event", "events", {"ev"}, true, false, true},
      {Col("Last Seen", "string",
           "Time when the most recent occurrence of this event was recorded."),
       Col("Type", "string", "Type of this event (Normal, Warning)."),
       Col("Reason", "string", "Why the action was taken."),
       Col("Object", "string", "The object that this event is about."),
       Col("Subobject", "string", "The subobject (field path) that this event is about.", 1),
       Col("Source", "string", "The component reporting this event.", 1),
       Col("Message", "string", "A human-readable description of the status of this operation."),
       Col("First Seen", "string", "The time at which the event was first recorded.", 1),
       Col("Count", "integer", "The number of times this event has occurred.", 1), event_name},
      {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
       "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
       "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}));
  out.push_back(Make(
      {"", "v1", "ConfigMap", "configmaps", {"cm"}, true, false, true},
      {NameColumn(), Col("Data", "string", "Number of keys in the config map."), AgeColumn()}));
  ResourceInfo service = Make({"", "v1", "Service", "services", {"svc"}, true, true, true},
                              {NameColumn(), Col("Type", "string", "The type of service."),
                               Col("Cluster-IP", "string", "The cluster IP of the service."),
                               Col("External-IP", "string", "The external IPs of the service."),
                               Col("Port(s)", "string", "The ports of the service."), AgeColumn(),
                               Col("Selector", "string", "The label selector of the service.", 1)});
  service.categories = {"all"};
  out.push_back(std::move(service));
  out.push_back(
      Make({"", "v1", "Endpoints", "endpoints", {"ep"}, true, false, true},
           {NameColumn(), Col("Endpoints", "string", "The endpoints (IP:port)."), AgeColumn()}));
  ResourceInfo sa =
      Make({"", "v1", "ServiceAccount", "serviceaccounts", {"sa"}, true, false, true},
           {NameColumn(), Col("Secrets", "integer", "The number of secrets."), AgeColumn()});
  sa.subresources = {"token"};  // TokenRequest (api/server/service_accounts.cc)
  out.push_back(std::move(sa));
  out.push_back(Make({"", "v1", "Secret", "secrets", {}, true, false, true},
                     {NameColumn(), Col("Type", "string", "The type of the secret."),
                      Col("Data", "string", "The number of keys in the secret."), AgeColumn()},
                     {"type"}));
}

void AddKubernetesGroups(std::vector<ResourceInfo>& out) {
  out.push_back(
      Make({"coordination.k8s.io", "v1", "Lease", "leases", {}, true, false, true},
           {NameColumn(), Col("Holder", "string", "The holder of the lease."), AgeColumn()}));
  out.push_back(Make(
      {"scheduling.k8s.io", "v1", "PriorityClass", "priorityclasses", {"pc"}, false, false, true},
      {NameColumn(), Col("Value", "integer", "The value of this priority class."),
       Col("Global-Default", "boolean",
           "globalDefault specifies whether this PriorityClass should be considered as the "
           "default priority."),
       AgeColumn()}));
  ResourceInfo deploy =
      Make({"apps", "v1", "Deployment", "deployments", {"deploy"}, true, true, true},
           {NameColumn(), Col("Ready", "string", "Number of the pod with ready state"),
            Col("Up-to-date", "string",
                "Total number of non-terminated pods targeted by this "
                "deployment that have the desired template spec."),
            Col("Available", "string",
                "Total number of available pods (ready for at least "
                "minReadySeconds) targeted by this deployment."),
            AgeColumn(), Col("Containers", "string", "Names of each container in the template.", 1),
            Col("Images", "string", "Images referenced by each container in the template.", 1),
            Col("Selector", "string", "Label selector for pods.", 1)});
  deploy.categories = {"all"};
  deploy.subresources = {"scale"};
  out.push_back(std::move(deploy));
  ResourceInfo rs =
      Make({"apps", "v1", "ReplicaSet", "replicasets", {"rs"}, true, true, true},
           {NameColumn(), Col("Desired", "integer", "Number of desired pods."),
            Col("Current", "integer", "Number of actual replicas."),
            Col("Ready", "integer", "The number of ready replicas for this replica set."),
            AgeColumn(), Col("Containers", "string", "Names of each container in the template.", 1),
            Col("Images", "string", "Images referenced by each container in the template.", 1),
            Col("Selector", "string", "Label selector for pods.", 1)});
  rs.categories = {"all"};
  rs.subresources = {"scale"};
  out.push_back(std::move(rs));
  ResourceInfo ds = Make(
      {"apps", "v1", "DaemonSet", "daemonsets", {"ds"}, true, true, true},
      {NameColumn(),
       Col("Desired", "integer",
           "The desired number of nodes that should be running the daemon pod."),
       Col("Current", "integer",
           "The number of nodes that are running at least 1 daemon pod and are supposed to run "
           "the daemon pod."),
       Col("Ready", "integer",
           "numberReady is the number of nodes that should be running the daemon pod and have "
           "one or more of the daemon pod running with a Ready Condition."),
       Col("Up-to-date", "integer",
           "The total number of nodes that are running updated daemon pod"),
       Col("Available", "integer",
           "The number of nodes that should be running the daemon pod and have one or more of "
           "the daemon pod running and available (ready for at least spec.minReadySeconds)"),
       Col("Node Selector", "string",
           "NodeSelector is a selector which must be true for the pod to fit on a node."),
       AgeColumn(), Col("Containers", "string", "Names of each container in the template.", 1),
       Col("Images", "string", "Images referenced by each container in the template.", 1),
       Col("Selector", "string", "Label selector for pods.", 1)});
  ds.categories = {"all"};
  out.push_back(std::move(ds));
  ResourceInfo hpa =
      Make({"autoscaling",
            "v2",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscalers",
            {"hpa"},
            true,
            true,
            true},
           {NameColumn(),
            Col("Reference", "string",
                "reference to scaled resource; horizontal pod autoscaler "
                "will learn the current resource consumption and will set "
                "the desired number of pods by using its Scale subresource."),
            Col("Targets", "string",
                "metrics contains the specifications for which to use to "
                "calculate the desired replica count."),
            Col("MinPods", "string", "minReplicas is the lower limit for the number of replicas."),
            Col("MaxPods", "integer", "maxReplicas is the upper limit for the number of replicas."),
            Col("Replicas", "integer",
                "currentReplicas is current number of replicas of pods "
                "managed by this autoscaler."),
            AgeColumn()});
  hpa.categories = {"all"};
  out.push_back(std::move(hpa));
  // batch/v1 before Volcano's group, so `job` and `cronjob` resolve to them as in Kubernetes
  // (kubectl's priority); Volcano's are vcjob and cronvcjob.
  ResourceInfo job =
      Make({"batch", "v1", "Job", "jobs", {}, true, true, true},
           {NameColumn(), Col("Status", "string", "Status of the job."),
            Col("Completions", "string", "The completion status of the job."),
            Col("Duration", "string", "Time required to complete the job."), AgeColumn(),
            Col("Containers", "string", "Names of each container in the template.", 1),
            Col("Images", "string", "Images referenced by each container in the template.", 1),
            Col("Selector", "string", "Label selector for pods.", 1)});
  job.categories = {"all"};
  out.push_back(std::move(job));
  ResourceInfo cron = Make(
      {"batch", "v1", "CronJob", "cronjobs", {"cj"}, true, true, true},
      {NameColumn(),
       Col("Schedule", "string",
           "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."),
       Col("Timezone", "string",
           "The time zone name for the given schedule, see "
           "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones."),
       Col("Suspend", "boolean",
           "This flag tells the controller to suspend subsequent executions, it does not apply "
           "to already started executions."),
       Col("Active", "integer", "A list of pointers to currently running jobs."),
       Col("Last Schedule", "string",
           "Information when was the last time the job was successfully scheduled."),
       AgeColumn(), Col("Containers", "string", "Names of each container in the template.", 1),
       Col("Images", "string", "Images referenced by each container in the template.", 1),
       Col("Selector", "string", "Label selector for pods.", 1)});
  cron.categories = {"all"};
  out.push_back(std::move(cron));
  out.push_back(
      Make({"discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", {}, true, false, true},
           {NameColumn(), Col("AddressType", "string", "The type of address."),
            Col("Ports", "string", "The ports."), Col("Endpoints", "string", "The endpoints."),
            AgeColumn()},
           {"addressType"}));
}

// Volcano's flow.volcano.sh kinds, columns as config/crd/jobflow/bases declares them (JobTemplate
// declares none: the apiserver's default Name, Age).
void AddVolcanoFlow(std::vector<ResourceInfo>& out) {
  out.push_back(
      Make({"flow.volcano.sh", "v1alpha1", "JobTemplate", "jobtemplates", {"jt"}, true, true},
           {NameColumn(), CrdAge("Age")}));
  out.push_back(
      Make({"flow.volcano.sh", "v1alpha1", "JobFlow", "jobflows", {"jf"}, true, true},
           {NameColumn(), CrdCol("Status", "string", ".status.state.phase"), CrdAge("Age")}));
}

void AddVolcano(std::vector<ResourceInfo>& out) {
  // Columns as Volcano's CRDs declare them (config/crd/volcano/bases).
  out.push_back(Make({"batch.volcano.sh", "v1alpha1", "Job", "jobs", {"vcjob", "vj"}, true, true},
                     {NameColumn(), CrdCol("STATUS", "string", ".status.state.phase"),
                      CrdCol("minAvailable", "integer", ".status.minAvailable"),
                      CrdCol("RUNNINGS", "integer", ".status.running"), CrdAge("AGE"),
                      CrdCol("QUEUE", "string", ".spec.queue", 1)},
                     {"spec.queue", "status.state.phase"}));
  out.push_back(Make(
      {"batch.volcano.sh", "v1alpha1", "CronJob", "cronjobs", {"cronvcjob", "cronvj"}, true, true},
      {NameColumn(), CrdCol("SCHEDULE", "string", ".spec.schedule"),
       CrdCol("SUSPEND", "boolean", ".spec.suspend"),
       CrdCol("ACTIVE", "integer", ".status.active[*].name"),
       CrdCol("LAST SCHEDULE", "date", ".status.lastScheduleTime"), CrdAge("AGE")}));
  out.push_back(Make(
      {"scheduling.volcano.sh", "v1beta1", "Queue", "queues", {"q", "queue-v1beta1"}, false, true},
      {NameColumn(),
       CrdCol("PARENT", "string", ".spec.parent", 0, "The parent queue of this queue")}));
  out.push_back(Make({"scheduling.volcano.sh",
                      "v1beta1",
                      "PodGroup",
                      "podgroups",
                      {"pg", "podgroup-v1beta1"},
                      true,
                      true},
                     {NameColumn(), CrdCol("STATUS", "string", ".status.phase"),
                      CrdCol("minMember", "integer", ".spec.minMember"),
                      CrdCol("RUNNINGS", "integer", ".status.running"), CrdAge("AGE"),
                      CrdCol("QUEUE", "string", ".spec.queue", 1)},
                     {"spec.queue", "status.phase"}));
  // Not a Volcano kind (seed NOTES.md): binds job labels to a cluster-scoped queue, cluster-wide.
  // Served in the group the seed writes it with (volcano.sh/v1beta1).
  out.push_back(Make(
      {"volcano.sh", "v1beta1", "QueueBinding", "queuebindings", {"qb"}, false, false},
      {NameColumn(), CrdCol("QUEUE", "string", ".spec.queue"), CrdAge("Age")}, {"spec.queue"}));
  // No additionalPrinterColumns in Volcano's CRD: the apiserver's default Name, Age.
  out.push_back(Make({"bus.volcano.sh", "v1alpha1", "Command", "commands", {}, true, false},
                     {NameColumn(), CrdAge("Age")}));
  out.push_back(
      Make({"topology.volcano.sh", "v1alpha1", "HyperNode", "hypernodes", {"hn"}, false, true},
           {NameColumn(), CrdCol("Tier", "string", ".spec.tier"),
            CrdCol("TierName", "string", ".spec.tierName"),
            CrdCol("NodeCount", "integer", ".status.nodeCount"), CrdAge("Age")}));
  AddVolcanoFlow(out);
}

// rbac.authorization.k8s.io/v1 (api/server/rbac.h evaluates them), with kubectl's columns; and
// the access reviews of authorization.k8s.io/v1 and authentication.k8s.io/v1, answered at
// each create and never stored (api/server/access_review.cc).
void AddRbac(std::vector<ResourceInfo>& out) {
  const std::string rbac = "rbac.authorization.k8s.io";
  auto created_at = [] {
    return Col("Created At", "date", "CreationTimestamp is the time the object was created.");
  };
  auto binding_columns = [] {
    return std::vector<PrinterColumn>{
        NameColumn(),
        Col("Role", "string", "The role of the binding: kind/name."),
        AgeColumn(),
        Col("Users", "string", "Users in the binding", 1),
        Col("Groups", "string", "Groups in the binding", 1),
        Col("ServiceAccounts", "string", "ServiceAccounts in the binding", 1)};
  };
  out.push_back(
      Make({rbac, "v1", "Role", "roles", {}, true, false, true}, {NameColumn(), created_at()}));
  out.push_back(
      Make({rbac, "v1", "RoleBinding", "rolebindings", {}, true, false, true}, binding_columns()));
  out.push_back(Make({rbac, "v1", "ClusterRole", "clusterroles", {}, false, false, true},
                     {NameColumn(), created_at()}));
  out.push_back(
      Make({rbac, "v1", "ClusterRoleBinding", "clusterrolebindings", {}, false, false, true},
           binding_columns()));
  auto review = [](std::string group, std::string kind, std::string plural, bool namespaced) {
    ResourceInfo r = Make(
        {std::move(group), "v1", std::move(kind), std::move(plural), {}, namespaced, false, true},
        {NameColumn()});
    r.verbs = {"create"};
    r.computed = true;
    return r;
  };
  out.push_back(
      review("authorization.k8s.io", "SelfSubjectAccessReview", "selfsubjectaccessreviews", false));
  out.push_back(
      review("authorization.k8s.io", "SelfSubjectRulesReview", "selfsubjectrulesreviews", false));
  out.push_back(
      review("authorization.k8s.io", "SubjectAccessReview", "subjectaccessreviews", false));
  out.push_back(review("authorization.k8s.io", "LocalSubjectAccessReview",
                       "localsubjectaccessreviews", true));
  out.push_back(review("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews", false));
}

// KEDA's ScaledObject (keda.sh/v1alpha1), with the printer columns of KEDA's CRD.
void AddKeda(std::vector<ResourceInfo>& out) {
  out.push_back(
      Make({"keda.sh", "v1alpha1", "ScaledObject", "scaledobjects", {"so"}, true, true},
           {NameColumn(), CrdCol("ScaleTargetKind", "string", ".status.scaleTargetKind"),
            CrdCol("ScaleTargetName", "string", ".spec.scaleTargetRef.name"),
            CrdCol("Min", "integer", ".spec.minReplicaCount"),
            CrdCol("Max", "integer", ".spec.maxReplicaCount"),
            CrdCol("Ready", "string", ".status.conditions[?(@.type==\"Ready\")].status"),
            CrdCol("Active", "string", ".status.conditions[?(@.type==\"Active\")].status"),
            CrdAge("Age")}));
}

// The metrics APIs (api/server/metrics_api.cc): read-only views computed from the agents'
// readings at each request, never stored. Discovery lists them as metrics-server,
// prometheus-adapter and KEDA list theirs.
void AddMetrics(std::vector<ResourceInfo>& out) {
  auto view = [](std::string group, std::string version, std::string kind, std::string plural,
                 bool namespaced, std::vector<std::string> verbs) {
    ResourceInfo r = Make({std::move(group),
                           std::move(version),
                           std::move(kind),
                           std::move(plural),
                           {},
                           namespaced,
                           false,
                           false},
                          {NameColumn()});
    r.verbs = std::move(verbs);
    r.computed = true;
    return r;
  };
  out.push_back(view("metrics.k8s.io", "v1beta1", "NodeMetrics", "nodes", false, {"get", "list"}));
  out.push_back(view("metrics.k8s.io", "v1beta1", "PodMetrics", "pods", true, {"get", "list"}));
  for (const char* version : {"v1beta1", "v1beta2"}) {
    ResourceInfo pods = view("custom.metrics.k8s.io", version, "MetricValueList", "pods", true, {});
    pods.subresources = types::PodMetricNames();  // "pods/gpu_utilization", ...
    out.push_back(std::move(pods));
  }
  for (const std::string& name : types::PodMetricNames()) {
    out.push_back(
        view("external.metrics.k8s.io", "v1beta1", "ExternalMetricValueList", name, true, {"get"}));
  }
}

// etna's accounting records (api/types/pod_run.h): written by the server when a pod's run ends,
// read and deleted by users, never created or changed by them.
void AddAccounting(std::vector<ResourceInfo>& out) {
  ResourceInfo runs =
      Make({"accounting.etna.io", "v1", "PodRun", "podruns", {"pr"}, false, false},
           {NameColumn(), CrdCol("Namespace", "string", ".pod.namespace"),
            CrdCol("Pod", "string", ".pod.name"), CrdCol("Queue", "string", ".queue"),
            CrdCol("User", "string", ".user"), CrdCol("GPUs", "number", ".totalGpus"),
            CrdCol("Phase", "string", ".phase"), CrdCol("Preempted", "boolean", ".preempted"),
            CrdCol("Ended", "date", ".ended"), CrdCol("Node", "string", ".pod.node", 1),
            CrdCol("Exit", "integer", ".exitCode", 1), CrdCol("Job", "string", ".job.name", 1)},
           {"queue", "user", "pod.namespace", "pod.name"});
  runs.verbs = {"delete", "deletecollection", "get", "list", "watch"};
  out.push_back(std::move(runs));
}

}  // namespace

std::vector<ResourceInfo> ServedResources() {
  std::vector<ResourceInfo> out;
  AddCore(out);
  AddKubernetesGroups(out);
  AddRbac(out);
  AddVolcano(out);
  AddKeda(out);
  AddMetrics(out);
  AddAccounting(out);
  return out;
}

}  // namespace etna::api::resources::internal
