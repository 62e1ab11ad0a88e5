// Volcano job policies (spec.policies and tasks[].policies): which action an event calls for.
// Task policies are looked at before the job's; a policy matches on `event`, any of `events`,
// `*`, or (for PodFailed) a container exit code in `exitCode`. Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/clock.h"

namespace etna::controllers {

struct PolicyMatch {
  std::string action;
  std::optional<TimeMs> timeout_ms;  // the policy's `timeout`, when given, rounded up to 1 ms
};

// The policy for `event` on a pod of `task` (empty task: job policies only); `exit_code` is the
// failed container's exit code (0 when none).
std::optional<PolicyMatch> FindPolicy(const nlohmann::json& job, const std::string& task,
                                      const std::string& event, int exit_code = 0);
// The first non-zero terminated exit code among the pod's containers (0 when none).
int PodExitCode(const nlohmann::json& pod);

}  // namespace etna::controllers
