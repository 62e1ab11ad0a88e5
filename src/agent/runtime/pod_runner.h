// One pod on this node: its containers (ContainerRunner each, in spec order), its phase and the
// status the agent reports, and its stop (SIGTERM, grace period, SIGKILL). Keeps the pod's
// identity and start time in <pod dir>/pod.json so a later agent can adopt or clean up.
// Init containers run first, one at a time, each to success (Kubernetes' rules; the pod is
// Pending meanwhile and Failed when one fails under restartPolicy Never).
// Thread-safety: driven by one thread (the runtime's, under its lock).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "agent/runtime/container_runner.h"

namespace etna::agent::runtime {

class PodRunner {
 public:
  // Loads what a previous agent left in `dir` (containers are adopted as found).
  PodRunner(std::string dir, const RuntimeTuning* tuning);

  // Takes the pod's spec (once): container runners in spec order, adopting what is on disk.
  void Adopt(const nlohmann::json& pod, TimeMs now);
  // Runs the pod: starts, observes, restarts its containers.
  void Step(const nlohmann::json& pod, const PodContext& context, TimeMs now);
  // Stops every container: SIGTERM at the first call, SIGKILL `grace_ms` later.
  void Stop(TimeMs grace_ms, TimeMs now);
  // The wall clock stepped by `step_ms` (common/clock.h): the SIGKILL after a grace period,
  // the next storage check and its containers' back-offs and probes move with it.
  void ShiftDeadlines(TimeMs step_ms);
  bool AllStopped() const;
  // Stops it for good, SIGKILL `grace_ms` after SIGTERM: the pod ends Failed with `reason` and
  // `message`: the kubelet's eviction for a resource the node must keep ("Evicted": ephemeral
  // storage), or the agent's fence when it lost the API ("NodeFenced": agent.h).
  void Evict(const std::string& reason, const std::string& message, TimeMs grace_ms, TimeMs now);
  bool evicted() const { return !evicted_reason_.empty(); }

  // "Pending", "Running", "Succeeded" or "Failed" from the containers' state.
  std::string Phase() const;
  // The status object to write (conditions merged with those already on `pod`).
  nlohmann::json Status(const nlohmann::json& pod, const PodContext& context, TimeMs now) const;

  // The log of a container's current or previous run; NotFound / InvalidArgument otherwise.
  Result<std::string> LogPath(const std::string& container, bool previous) const;
  // How to run a command in `container` ("": the first running one); FailedPrecondition while
  // it is not running.
  Result<ProbeTarget> ExecTarget(const std::string& container) const;

  // What its containers did that deserves an Event (image pulls), since the last call.
  std::vector<BackendEvent> TakeEvents();

  // The containers running now (name and session), in spec order.
  std::vector<std::pair<std::string, pid_t>> RunningContainers() const;
  TimeMs start_ms() const { return start_ms_; }
  const std::string& dir() const { return dir_; }
  const std::string& ns() const { return ns_; }
  const std::string& name() const { return name_; }
  bool stopping() const { return stopping_; }
  // When it was last judged for its storage (storage_limits.h).
  TimeMs& storage_checked_ms() { return storage_checked_ms_; }
  // The status last written to the API (to skip unchanged writes).
  nlohmann::json& last_reported() { return last_reported_; }

 private:
  ContainerRunner* Find(const std::string& name) const;
  bool InitDone() const;
  bool InitFailed() const;

  std::string dir_;
  const RuntimeTuning* tuning_;
  std::string ns_, name_;
  TimeMs start_ms_ = 0;
  bool have_spec_ = false;
  std::vector<std::pair<std::string, std::unique_ptr<ContainerRunner>>> containers_;
  std::vector<std::pair<std::string, std::unique_ptr<ContainerRunner>>> init_;
  bool stopping_ = false;
  TimeMs kill_at_ms_ = 0;
  std::string evicted_reason_, evicted_message_;
  std::vector<BackendEvent> events_;  // its own (Evicted), besides its containers'
  TimeMs storage_checked_ms_ = 0;
  nlohmann::json last_reported_;
};

}  // namespace etna::agent::runtime
