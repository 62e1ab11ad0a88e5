// The rules Volcano's jobflow and jobtemplate controllers share, as pure functions: the names
// and labels of the Volcano Jobs a JobFlow makes, a JobFlow's status computed from its Jobs, and
// its phase machine. Thread-safe (no state).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace etna::controllers {

// The label and annotation on each Job a JobFlow makes, valued "<namespace>.<name>" of the
// JobFlow and of the JobTemplate it was made from (CreatedByValue).
inline constexpr char kCreatedByJobFlow[] = "volcano.sh/createdByJobFlow";
inline constexpr char kCreatedByJobTemplate[] = "volcano.sh/createdByJobTemplate";
std::string CreatedByValue(const std::string& ns, const std::string& name);

// The Job a JobFlow `jobflow` makes of its flow (JobTemplate) `flow`: "<jobflow>-<flow>".
std::string FlowJobName(const std::string& jobflow, const std::string& flow);

// A JobFlow's status from `jobs`, the Volcano Jobs it made (in the order they are to be listed),
// as Volcano writes it: the job names by phase (pendingJobs, runningJobs, completedJobs,
// failedJobs, terminatedJobs; unKnowJobs for a phase outside Volcano's list, such as a Job the
// job controller has not seen yet), conditions (per job: phase, createTime, runningDuration,
// taskStatusCount) and jobStatusList (per job: state, startTimestamp, endTimestamp once
// finished, restartCount, runningHistories). Entries of `old_status`'s jobStatusList whose Job
// is gone are kept; a running history gains an entry, stamped `now`, when its Job's phase
// changes. state is copied from `old_status`; empty lists are left out.
nlohmann::json BuildJobFlowStatus(const nlohmann::json& old_status,
                                  const std::vector<nlohmann::json>& jobs, const std::string& now);

// Volcano's JobFlow phase machine: from Pending ("" included) to Running once a Job runs or
// completes and none failed, or to Failed once one failed or was terminated; from Running to
// Succeed once `flows` Jobs completed, or to Failed as from Pending. Succeed, Failed and
// Terminating stay.
std::string NextJobFlowPhase(const std::string& phase, const nlohmann::json& status, size_t flows);

}  // namespace etna::controllers
