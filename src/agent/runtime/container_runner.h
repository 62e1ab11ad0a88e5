// One container of a pod: starts its runs through the node's Backend (a host process or a runc
// container, each under the shim), watches it end (its exit file), restarts
// it per the pod's restartPolicy with exponential backoff, drives its probes, stops it, and
// keeps what a later agent needs in <pod dir>/<container>/state.json (run number, shim pid and
// its start time, the previous run's end). Run N logs to N.log and ends with N.exit.
// Thread-safety: driven by one thread (the runtime's sync loop).
#pragma once

#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "agent/runtime/backend.h"
#include "agent/runtime/pod_env.h"
#include "agent/runtime/probe.h"
#include "agent/runtime/shim.h"

namespace etna::agent::runtime {

struct RuntimeTuning {
  Backend* backend = nullptr;  // required: how runs start (process or runc)
  std::string shim_binary;
  TimeMs backoff_initial_ms = 10'000;
  TimeMs backoff_max_ms = 300'000;
  int64_t log_max_bytes = 0;  // per container run (log_rotation.h); 0: no cap
  int log_max_files = 5;
};

class ContainerRunner {
 public:
  // Loads the state a previous agent left in `dir`, if any (adopting a running shim).
  ContainerRunner(std::string dir, nlohmann::json spec, const RuntimeTuning* tuning);

  // One step while the pod should run: starts, observes, restarts (restart_policy: Always,
  // OnFailure, Never), probes.
  void Step(const nlohmann::json& pod, const PodContext& context, const std::string& restart_policy,
            TimeMs now);
  // Stops the container: SIGTERM to its process group now (once), SIGKILL at `kill_at_ms`.
  // Observes the end like Step; never restarts again.
  void Stop(TimeMs kill_at_ms, TimeMs now);
  // The wall clock stepped by `step_ms` (common/clock.h): the restart back-off and the probes'
  // next checks move with it. (A stop's SIGKILL time is the pod's.)
  void ShiftDeadlines(TimeMs step_ms);

  bool running() const { return running_; }
  // The session (and process group) of the running container's processes; 0 when not running.
  pid_t session() const { return running_ ? pid_ : 0; }
  bool ever_started() const { return attempt_ >= 0; }
  // Ended and will not be started again (by policy or because it was stopped).
  bool finished() const { return final_; }
  int exit_code() const { return current_exit_ ? current_exit_->exit_code : 0; }
  // The Kubernetes containerStatus.
  nlohmann::json Status(TimeMs now) const;
  // The log of the current (or previous) run: "<dir>/<run>.log", ended once "<dir>/<run>.exit"
  // exists; empty when there is none.
  std::string LogPath(bool previous) const;
  // How to run a command in the running container (kubectl exec); nullopt when not running.
  std::optional<ProbeTarget> ExecTarget() const { return running_ ? target_ : std::nullopt; }
  // What happened since the last call that deserves an Event on the pod (image pulls).
  std::vector<BackendEvent> TakeEvents() { return std::move(events_); }

 private:
  void Launch(const nlohmann::json& pod, const PodContext& context, TimeMs now);
  RunRef Run() const { return {dir_, attempt_}; }
  void Observe(TimeMs now);
  void Probe(const nlohmann::json& pod, const PodContext& context, TimeMs now);
  void Kill(int signal);
  void Persist() const;
  void Load();
  std::string RunFile(int attempt, const char* ext) const;

  std::string dir_;
  nlohmann::json spec_;
  const RuntimeTuning* tuning_;
  std::string name_;
  int attempt_ = -1;  // = restartCount once started
  pid_t pid_ = 0;
  long long pid_start_ = -1;
  TimeMs started_ms_ = 0;
  bool running_ = false;
  bool final_ = false;
  bool stopping_ = false;
  bool sigkilled_ = false;
  std::string kill_reason_;  // set when the agent kills it (liveness, SIGKILL after grace)
  std::optional<ExitRecord> current_exit_;
  std::optional<ExitRecord> last_exit_;
  TimeMs last_started_ms_ = 0;
  TimeMs next_start_ms_ = 0;
  std::string waiting_reason_ = "ContainerCreating";
  std::string waiting_message_;
  std::string image_id_;
  std::vector<BackendEvent> events_;
  std::optional<ProbeTarget> target_;  // the current run's, from its first probe step
  std::optional<ProbeTracker> startup_, liveness_, readiness_;
  bool started_ = false;  // startup probe passed (or none)
  bool ready_ = false;
};

}  // namespace etna::agent::runtime
