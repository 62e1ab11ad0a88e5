#include "controllers/job_pods.h"

#include <fmt/format.h>

#include <map>

#include "client/well_known.h"
#include "common/resource.h"
#include "controllers/job_plugins.h"

namespace etna::controllers {

namespace wk = etna::client;

std::string JobName(const Json& job) { return StringAt(job, "/metadata/name"); }
std::string JobNamespace(const Json& job) { return StringAt(job, "/metadata/namespace"); }

int64_t IntAt(const Json& object, const char* pointer, int64_t fallback) {
  Json::json_pointer p(pointer);
  if (!object.contains(p)) return fallback;
  const Json& v = object.at(p);
  return v.is_number_integer() ? v.get<int64_t>() : fallback;
}

std::string StringAt(const Json& object, const char* pointer, const std::string& fallback) {
  Json::json_pointer p(pointer);
  if (!object.contains(p)) return fallback;
  const Json& v = object.at(p);
  return v.is_string() ? v.get<std::string>() : fallback;
}

Json ArrayAt(const Json& object, const char* pointer) {
  Json::json_pointer p(pointer);
  if (!object.contains(p) || !object.at(p).is_array()) return Json::array();
  return object.at(p);
}

Json ObjectAt(const Json& object, const char* pointer) {
  Json::json_pointer p(pointer);
  if (!object.contains(p) || !object.at(p).is_object()) return Json::object();
  return object.at(p);
}

bool BoolAt(const Json& object, const char* pointer, bool fallback) {
  Json::json_pointer p(pointer);
  if (!object.contains(p) || !object.at(p).is_boolean()) return fallback;
  return object.at(p).get<bool>();
}

std::string PodGroupNameForJob(const Json& job) {
  return fmt::format("{}-{}", JobName(job), StringAt(job, "/metadata/uid"));
}

std::string JobPodName(const std::string& job, const std::string& task, int index) {
  return fmt::format("{}-{}-{}", job, task, index);
}

std::string JobPodHost(const std::string& job, const std::string& task, int index) {
  return fmt::format("{}.{}", JobPodName(job, task, index), job);
}

Json ControllerRef(const Json& owner) {
  return {{"apiVersion", owner.value("apiVersion", "")},
          {"kind", StringAt(owner, "/kind")},
          {"name", StringAt(owner, "/metadata/name")},
          {"uid", StringAt(owner, "/metadata/uid")},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

namespace {

// Adds the requests of one pod of `task` (its containers' requests, else limits) to `sum`.
void AddPodRequests(const Json& task, std::map<ResourceId, int64_t>& sum) {
  const Json* containers = nullptr;
  Json::json_pointer p("/template/spec/containers");
  if (task.contains(p)) containers = &task.at(p);
  if (!containers || !containers->is_array()) return;
  for (const Json& c : *containers) {
    const Json* list = nullptr;
    if (c.contains("resources") && c["resources"].contains("requests")) {
      list = &c["resources"]["requests"];
    } else if (c.contains("resources") && c["resources"].contains("limits")) {
      list = &c["resources"]["limits"];
    }
    if (!list || !list->is_object()) continue;
    for (const auto& [name, q] : list->items()) {
      auto id = ResourceNames::Global().Intern(name);
      if (!id.ok()) continue;
      std::string text = q.is_string() ? q.get<std::string>() : q.dump();
      auto amount = ParseQuantity(text, ResourceNames::Global().Unit(*id));
      if (amount.ok()) sum[*id] += *amount;
    }
  }
}

}  // namespace

Json BuildJobPodGroup(const Json& job) {
  const Json& spec = job.at("spec");
  int64_t min_available = IntAt(job, "/spec/minAvailable", 0);
  Json min_task = Json::object();
  std::map<ResourceId, int64_t> sum;
  const Json tasks = spec.value("tasks", Json::array());
  // The first minAvailable pods: each task's own minAvailable first, then the rest in order.
  std::vector<int64_t> taken(tasks.size(), 0);
  int64_t count = 0;
  for (size_t i = 0; i < tasks.size() && count < min_available; ++i) {
    int64_t m = tasks[i].value("minAvailable", tasks[i].value("replicas", int64_t{0}));
    min_task[tasks[i].value("name", "")] = m;
    for (int64_t k = 0; k < m && count < min_available; ++k, ++count, ++taken[i]) {
      AddPodRequests(tasks[i], sum);
    }
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string name = tasks[i].value("name", "");
    if (!min_task.contains(name)) {
      min_task[name] = tasks[i].value("minAvailable", tasks[i].value("replicas", int64_t{0}));
    }
    for (int64_t k = taken[i]; k < tasks[i].value("replicas", int64_t{0}) && count < min_available;
         ++k, ++count) {
      AddPodRequests(tasks[i], sum);
    }
  }
  Json min_resources = Json::object();
  for (const auto& [id, amount] : sum) {
    min_resources[ResourceNames::Global().Name(id)] = FormatQuantity(id, amount);
  }
  Json pg_spec = {{"minMember", min_available},
                  {"minTaskMember", min_task},
                  {"queue", spec.value("queue", "default")},
                  {"minResources", min_resources}};
  if (spec.contains("priorityClassName")) pg_spec["priorityClassName"] = spec["priorityClassName"];
  if (spec.contains("priority")) pg_spec["priority"] = spec["priority"];
  if (spec.contains("networkTopology")) pg_spec["networkTopology"] = spec["networkTopology"];
  Json annotations = Json::object();
  Json labels = Json::object();
  if (job.contains("metadata") && job["metadata"].contains("annotations")) {
    annotations = job["metadata"]["annotations"];
  }
  if (job.contains("metadata") && job["metadata"].contains("labels")) {
    labels = job["metadata"]["labels"];
  }
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata",
           {{"name", PodGroupNameForJob(job)},
            {"namespace", JobNamespace(job)},
            {"labels", labels},
            {"annotations", annotations},
            {"ownerReferences", Json::array({ControllerRef(job)})}}},
          {"spec", pg_spec}};
}

Json BuildJobPod(const Json& job, size_t task_index, int index, std::optional<int64_t> priority) {
  const Json& task = job["spec"]["tasks"][task_index];
  std::string job_name = JobName(job);
  std::string task_name = StringAt(task, "/name");
  Json tmpl = task.value("template", Json::object());
  Json meta = tmpl.value("metadata", Json::object());
  Json spec = tmpl.value("spec", Json::object());
  std::string version = std::to_string(IntAt(job, "/status/version", 0));
  std::string retry = std::to_string(IntAt(job, "/status/retryCount", 0));
  Json labels = meta.value("labels", Json::object());
  labels[wk::kJobNameLabel] = job_name;
  labels[wk::kJobNamespaceLabel] = JobNamespace(job);
  labels[wk::kQueueNameLabel] = StringAt(job, "/spec/queue", "default");
  labels[wk::kTaskSpecLabel] = task_name;
  labels[wk::kTaskIndexLabel] = std::to_string(index);
  labels[wk::kJobVersionLabel] = version;
  labels[wk::kJobRetryCountLabel] = retry;
  Json annotations = meta.value("annotations", Json::object());
  annotations[wk::kTaskSpecAnnotation] = task_name;
  annotations[wk::kTaskSpecIndexAnnotation] = std::to_string(index);
  annotations[wk::kJobNameAnnotation] = job_name;
  annotations[wk::kJobVersionAnnotation] = version;
  annotations[wk::kGroupNameAnnotation] = PodGroupNameForJob(job);
  if (!spec.contains("schedulerName") || spec["schedulerName"] == "") {
    spec["schedulerName"] = StringAt(job, "/spec/schedulerName", "volcano");
  }
  if (!spec.contains("priorityClassName") && job["spec"].contains("priorityClassName")) {
    spec["priorityClassName"] = job["spec"]["priorityClassName"];
  }
  if (priority && !spec.contains("priority")) spec["priority"] = *priority;
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", JobPodName(job_name, task_name, index)},
                {"namespace", JobNamespace(job)},
                {"labels", labels},
                {"annotations", annotations},
                {"ownerReferences", Json::array({ControllerRef(job)})}}},
              {"spec", spec}};
  ApplyJobPlugins(job, task_name, index, pod);
  return pod;
}

}  // namespace etna::controllers
