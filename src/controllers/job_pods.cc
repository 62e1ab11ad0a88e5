#include "controllers/job_pods.h"

#include <fmt/format.h>

#include <map>

#include "api/types/job.h"
#include "api/types/well_known.h"
#include "common/resource.h"
#include "controllers/job_plugins.h"

namespace etna::controllers {

namespace types = etna::api::types;
namespace wk = etna::api::types;

std::string JobPodName(const std::string& job, const std::string& task, int index) {
  return fmt::format("{}-{}-{}", job, task, index);
}

std::string JobPodHost(const std::string& job, const std::string& task, int index) {
  return fmt::format("{}.{}", JobPodName(job, task, index), job);
}

Json ControllerRef(const Json& owner) {
  return ControllerRef(owner, types::String(owner, {"apiVersion"}),
                       types::ObjectView(owner).kind());
}

Json ControllerRef(const Json& owner, std::string_view api_version, std::string_view kind) {
  types::ObjectView o(owner);
  return {{"apiVersion", api_version}, {"kind", kind},
          {"name", o.name()},          {"uid", o.uid()},
          {"controller", true},        {"blockOwnerDeletion", true}};
}

namespace {

// Adds the requests of one pod of `task` (its containers' requests, else limits) to `sum`.
void AddPodRequests(const types::JobTask& task, std::map<ResourceId, int64_t>& sum) {
  for (const Json& c : task.containers()) {
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
  types::Job view(job);
  int64_t min_available = view.MinAvailable();
  Json min_task = Json::object();
  std::map<ResourceId, int64_t> sum;
  std::vector<types::JobTask> tasks(view.tasks().begin(), view.tasks().end());
  // The first minAvailable pods: each task's own minAvailable first, then the rest in order.
  std::vector<int64_t> taken(tasks.size(), 0);
  int64_t count = 0;
  for (size_t i = 0; i < tasks.size() && count < min_available; ++i) {
    int64_t m = tasks[i].MinAvailable();
    min_task[tasks[i].name()] = m;
    for (int64_t k = 0; k < m && count < min_available; ++k, ++count, ++taken[i]) {
      AddPodRequests(tasks[i], sum);
    }
  }
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string name = tasks[i].name();
    if (!min_task.contains(name)) min_task[name] = tasks[i].MinAvailable();
    for (int64_t k = taken[i]; k < tasks[i].replicas() && count < min_available; ++k, ++count) {
      AddPodRequests(tasks[i], sum);
    }
  }
  Json min_resources = Json::object();
  for (const auto& [id, amount] : sum) {
    min_resources[ResourceNames::Global().Name(id)] = FormatQuantity(id, amount);
  }
  Json pg_spec = {{"minMember", min_available},
                  {"minTaskMember", min_task},
                  {"queue", view.queue()},
                  {"minResources", min_resources}};
  if (spec.contains("priorityClassName")) pg_spec["priorityClassName"] = spec["priorityClassName"];
  if (spec.contains("priority")) pg_spec["priority"] = spec["priority"];
  if (spec.contains("networkTopology")) pg_spec["networkTopology"] = spec["networkTopology"];
  if (spec.contains("runningEstimate")) pg_spec["runningEstimate"] = spec["runningEstimate"];
  return {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
          {"kind", "PodGroup"},
          {"metadata",
           {{"name", view.PodGroupName()},
            {"namespace", view.ns()},
            {"labels", view.labels()},
            {"annotations", view.annotations()},
            {"ownerReferences", Json::array({ControllerRef(job)})}}},
          {"spec", pg_spec}};
}

Json BuildJobPod(const Json& job, size_t task_index, int index) {
  types::Job view(job);
  const Json& task = job["spec"]["tasks"][task_index];
  std::string job_name = view.name();
  types::JobTask task_view(task);
  std::string task_name = task_view.name();
  Json tmpl = task_view.pod_template();
  Json meta = tmpl.value("metadata", Json::object());
  Json spec = tmpl.value("spec", Json::object());
  std::string version = std::to_string(view.version());
  std::string retry = std::to_string(view.retry_count());
  Json labels = meta.value("labels", Json::object());
  labels[wk::kJobNameLabel] = job_name;
  labels[wk::kJobNamespaceLabel] = view.ns();
  labels[wk::kQueueNameLabel] = view.queue();
  labels[wk::kTaskSpecLabel] = task_name;
  labels[wk::kTaskIndexLabel] = std::to_string(index);
  labels[wk::kJobVersionLabel] = version;
  labels[wk::kJobRetryCountLabel] = retry;
  Json annotations = meta.value("annotations", Json::object());
  annotations[wk::kTaskSpecAnnotation] = task_name;
  annotations[wk::kTaskSpecIndexAnnotation] = std::to_string(index);
  annotations[wk::kJobNameAnnotation] = job_name;
  annotations[wk::kJobVersionAnnotation] = version;
  annotations[wk::kGroupNameAnnotation] = view.PodGroupName();
  if (!spec.contains("schedulerName") || spec["schedulerName"] == "") {
    spec["schedulerName"] = view.scheduler_name();
  }
  if (!spec.contains("priorityClassName") && job["spec"].contains("priorityClassName")) {
    spec["priorityClassName"] = job["spec"]["priorityClassName"];
  }
  if (!spec.contains("priorityClassName") && !spec.contains("priority")) {
    if (auto priority = types::IntegerIfSet(job, {"spec", "priority"}))
      spec["priority"] = *priority;
  }
  Json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", JobPodName(job_name, task_name, index)},
                {"namespace", view.ns()},
                {"labels", labels},
                {"annotations", annotations},
                {"ownerReferences", Json::array({ControllerRef(job)})}}},
              {"spec", spec}};
  ApplyJobPlugins(job, task_name, index, pod);
  return pod;
}

}  // namespace etna::controllers
