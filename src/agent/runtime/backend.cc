#include "agent/runtime/backend.h"

#include <signal.h>

namespace etna::agent::runtime {

Prepared ProcessBackend::Prepare(const RunRequest& request, std::vector<BackendEvent>*) {
  Prepared p;
  auto launch = BuildLaunch(request.pod, request.container, request.context);
  if (!launch.ok() && launch.status().code() == StatusCode::kUnavailable) {
    p.state = Prepared::State::kWaiting;  // a peer's address, known once it is placed
    p.reason = "ContainerCreating";
    p.message = launch.status().message();
    return p;
  }
  if (!launch.ok()) {
    p.state = Prepared::State::kFailed;
    p.reason = "CreateContainerConfigError";
    p.message = launch.status().message();
    return p;
  }
  p.launch.argv = std::move(launch->argv);
  p.launch.env = std::move(launch->env);
  p.launch.working_dir = std::move(launch->working_dir);
  return p;
}

void ProcessBackend::Signal(const RunRef&, pid_t shim, int signal) {
  // The shim ignores SIGTERM; the group reaches the command. A SIGKILL takes the shim too.
  if (shim > 0) kill(-shim, signal);
}

}  // namespace etna::agent::runtime
