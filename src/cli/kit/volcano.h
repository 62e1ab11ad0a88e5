// Volcano specifics the user commands share: bus.volcano.sh Commands (what vcctl creates to
// suspend and resume jobs and to open and close queues), a job's PodGroups, a queue's time
// window, and a Kubernetes quantity map printed compactly.
// Thread-safety: as Api.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/types/job_explanation.h"
#include "cli/kit/api.h"
#include "common/status.h"

namespace etna::cli {

// Creates a bus.volcano.sh/v1alpha1 Command in `ns` with `action` (AbortJob, ResumeJob,
// OpenQueue, CloseQueue) targeting `target` (a full object: its apiVersion, kind, name and uid
// make the target and owner reference), as vcctl does. Returns the Command's name.
Result<std::string> CreateBusCommand(Api* api, const std::string& ns, const std::string& action,
                                     const nlohmann::json& target);

// The PodGroups of a Volcano job: those it owns, else the ones named as Volcano names them.
Result<std::vector<nlohmann::json>> JobPodGroups(Api* api, const nlohmann::json& job);

// Shared with the API server (the dashboard's job page): api/types/job_explanation.h.
using api::types::Quantities;
using api::types::QueueWindowNote;

}  // namespace etna::cli
