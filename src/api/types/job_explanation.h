// Why a Volcano Job waits, in the words `etna explain JOB` prints and the dashboard's job page
// shows (one text for both): the job's phase, its PodGroups' conditions (the scheduler's
// reasons), each task's pod against the nodes' allocatable (a pod no node can ever hold), the
// queue's state, time window and capability against the gang's need, and plain-language
// suggestions. Pure: the caller reads the objects.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace etna::api::types {

// The PodGroups of Volcano job `job` among `podgroups` (its namespace's): those it owns, else
// the ones named as Volcano names them.
std::vector<nlohmann::json> JobPodGroups(const nlohmann::json& job,
                                         const std::vector<nlohmann::json>& podgroups);

// "queue dev-test is outside its time windows; the next opens at 2026-12-07T09:00:00+01:00"
// from the Queue's status.timeWindow; "" when the queue is inside a window or has none.
std::string QueueWindowNote(const nlohmann::json& queue);

// {"cpu":"2","nvidia.com/gpu":"1"} → "cpu=2,nvidia.com/gpu=1"; "<none>" when empty.
std::string Quantities(const nlohmann::json& map);

// The lines ExplainJob prints for a PodGroup of its own (no Volcano Job owns it: a Deployment's,
// a bare pod group's): its phase and conditions, and its queue (null: not found).
std::string ExplainPodGroup(const nlohmann::json& group, const nlohmann::json* queue);

// The explanation of Volcano Job `job` (`name` in `ns`): `groups` its PodGroups, `nodes` every
// node, `queue` its queue (null: not found).
std::string ExplainJob(const std::string& ns, const std::string& name, const nlohmann::json& job,
                       const std::vector<nlohmann::json>& groups,
                       const std::vector<nlohmann::json>& nodes, const nlohmann::json* queue);

}  // namespace etna::api::types
