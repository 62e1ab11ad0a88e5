// Container probes (exec, httpGet, tcpSocket) and the Kubernetes rules around them:
// initialDelaySeconds, periodSeconds, timeoutSeconds, successThreshold, failureThreshold.
// Each check runs on its own short-lived thread so a slow probe never stalls the agent's loop.
// Thread-safety: a ProbeTracker belongs to one container and is driven from one thread.
#pragma once

#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"

namespace etna::agent::runtime {

// What a probe needs to reach its container.
struct ProbeTarget {
  std::string host = "127.0.0.1";
  nlohmann::json ports = nlohmann::json::array();  // the container's spec.ports (named ports)
  std::vector<std::pair<std::string, std::string>> env;
  std::string working_dir;
  // Put before an exec probe's command: how to run it inside the container (`runc ... exec ID`;
  // a terminal's flags go right after "exec": exec_session.h); empty in the process runtime.
  std::vector<std::string> exec_prefix;
};

// Runs one check; true on success. Blocks at most about timeoutSeconds.
bool RunProbeOnce(const nlohmann::json& probe, const ProbeTarget& target);

class ProbeTracker {
 public:
  enum class Verdict { kUnknown, kSuccess, kFailure };

  ProbeTracker(nlohmann::json probe, ProbeTarget target, TimeMs container_started_ms);
  ProbeTracker(ProbeTracker&&) = default;
  ProbeTracker& operator=(ProbeTracker&&) = default;

  // Collects a finished check and starts the next when due. Returns the verdict so far:
  // kSuccess after successThreshold consecutive successes, kFailure after failureThreshold
  // consecutive failures (it stays until a success), kUnknown before either.
  Verdict Poll(TimeMs now);
  // The wall clock stepped by `step_ms` (common/clock.h): the next check moves with it.
  void ShiftDeadlines(TimeMs step_ms) { next_ms_ += step_ms; }

 private:
  nlohmann::json probe_;
  ProbeTarget target_;
  TimeMs next_ms_;
  int period_ms_;
  int success_threshold_;
  int failure_threshold_;
  int successes_ = 0;
  int failures_ = 0;
  Verdict verdict_ = Verdict::kUnknown;
  std::future<bool> inflight_;
};

}  // namespace etna::agent::runtime
