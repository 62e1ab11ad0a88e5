// What the job controller creates for a Volcano Job, as Volcano's job controller writes it: the
// PodGroup and the pods of each task (names, labels, annotations, owner references, scheduler
// name, priority) with the job plugins' changes (job_plugins.h). Pure functions of the Job; the
// Job is read through its typed view (api/types/job.h).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace etna::controllers {

using Json = nlohmann::json;

// "<job>-<task>-<index>", Volcano's pod name.
std::string JobPodName(const std::string& job, const std::string& task, int index);
// The DNS name the svc plugin gives a pod: "<job>-<task>-<index>.<job>".
std::string JobPodHost(const std::string& job, const std::string& task, int index);
// An ownerReference to `owner` (controller: true).
Json ControllerRef(const Json& owner);
// The same for an owner whose apiVersion and kind a cached object may lack.
Json ControllerRef(const Json& owner, std::string_view api_version, std::string_view kind);

// The PodGroup for `job` (minMember, minTaskMember, queue, priorityClassName, minResources).
Json BuildJobPodGroup(const Json& job);
// The pod `index` of task `task_index`. Priority: the template's priorityClassName, else the
// job's; a pod without a class gets the job's integer spec.priority (the seed's). The API
// server's admission resolves the class (api/types/priority.h), so the controller never does.
Json BuildJobPod(const Json& job, size_t task_index, int index);

}  // namespace etna::controllers
