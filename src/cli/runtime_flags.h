// The container-runtime flags `etna agent` and `etna dev` share (--runtime, --insecure-registry,
// --gpu-device-dir, the container log's cap, and the agent's --cgroup-parent): their
// declarations, and one reading that
// refuses a container-only flag given with the process runtime rather than ignoring it.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "agent/agent.h"
#include "cli/kit/command.h"

namespace etna::cli {

// `flags` followed by the runtime flags' declarations; `with_cgroup_parent` adds
// --cgroup-parent (the agent's only: the simulated nodes of `etna dev` keep the default).
std::vector<Flag> WithRuntimeFlags(std::vector<Flag> flags, bool with_cgroup_parent);

// Sets options->runtime and options->runc from the invocation; "" when fine, else the usage
// error naming the flag (an unknown --runtime, or a container-only flag without
// --runtime container).
std::string ApplyRuntimeFlags(const Invocation& inv, agent::AgentOptions* options);

}  // namespace etna::cli
