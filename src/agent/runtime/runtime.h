// The runtime of one node: runs the pods bound to it (PodRunner each, through the node's
// Backend: host processes or runc containers; state under
// <data dir>/pods/<uid>/), reports their status through the status subresource, stops pods
// being deleted (SIGTERM, grace period, SIGKILL) and then deletes them with grace 0, kills
// pods that vanished from the API, and adopts what a previous agent left running. Each pod's
// /etc/hosts (pod_hosts.h) follows the names it resolves at every sync.
// Thread-safety: Sync from one thread (the agent's pod loop); LogPath and ExecTarget from any
// thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/runtime/backend.h"
#include "agent/runtime/pod_runner.h"
#include "client/event_recorder.h"
#include "client/rest.h"
#include "common/clock.h"
#include "common/clock_steps.h"

namespace etna::agent::runtime {

struct RuntimeOptions {
  std::string node_name;
  std::string data_dir;
  std::string host_ip = "127.0.0.1";
  std::string node_cpu = "1";
  std::string node_memory = "1Gi";
  RuntimeTuning tuning;
  // How often a pod with ephemeral-storage limits is judged (storage_limits.h), as the
  // kubelet's eviction manager does.
  TimeMs storage_check_ms = 10'000;
  const Clock* clock = nullptr;  // required
  // Measures how far `clock` steps (ClockStepDetector); null: the steady clock.
  const Clock* monotonic = nullptr;
  // The node's GPUs now (for MIG identifiers and UUIDs by index).
  std::function<std::vector<client::NodeGpu>()> gpus;
  bool drivable_gpu_utilization = false;  // PodContext's
  // How containers run; null: host processes (ProcessBackend).
  std::shared_ptr<Backend> backend;
  // The names a pod resolves besides its own (agent/peer_hosts.h); null: none.
  std::function<std::vector<HostEntry>(const nlohmann::json& pod)> resolve_hosts;
  // In-cluster API access: where the API server is, its CA, and a token for the pod's
  // ServiceAccount (agent/pod_tokens.h); no token function: pods get none.
  std::string api_host;
  uint16_t api_port = 0;
  std::string api_ca_pem;
  std::function<Result<std::string>(const nlohmann::json& pod)> service_account_token;
  // True once the agent must fence (agent.h): Sync returns before its next pod's API writes,
  // so that a write stalled by a partition delays the fence by at most one request.
  std::function<bool()> offline;
};

// <data dir>/pods/<uid>: where a pod's state, logs and volumes live.
std::string PodDir(const std::string& data_dir, const std::string& uid);

// A pod with running containers, for the agent's resource usage summary.
struct RunningPod {
  std::string ns, name, uid;
  TimeMs start_ms = 0;
  std::vector<std::pair<std::string, pid_t>> containers;  // name, session
};

class Runtime {
 public:
  Runtime(RuntimeOptions options, client::RestClient* rest);

  // One pass over the pods the API shows bound to this node (`pods` may hold others; they are
  // skipped). Pods with state on disk that are not listed are killed and cleaned up first.
  void Sync(const std::vector<nlohmann::json>& pods);

  // The agent's fence (agent.h): stops every pod of this node for good — SIGTERM, SIGKILL
  // `grace_ms` later (or at its own shorter grace period) — without a word to the API, except
  // pods annotated etna.io/survive-partition: "true", which keep running. A fenced pod, and one
  // listed here that had not started, never starts on this node again; Sync reports it Failed
  // with reason NodeFenced and `message` while the API still shows it. Called on every pass
  // while the agent is fenced, which moves the stops on.
  void Fence(const std::vector<nlohmann::json>& pods, const std::string& message, TimeMs grace_ms);

  // Ends pod `uid` for good at the next Sync: killed at once, never started again, reported
  // Failed with `reason` and `message` (a GPU it holds broke: agent.h).
  void EndForGood(const std::string& uid, const std::string& reason, const std::string& message);

  // Stops every pod (SIGTERM, its grace period, SIGKILL), waiting until all have ended, and
  // reports each as Failed with reason Shutdown (the kubelet's graceful node shutdown).
  // `pods`: the API's view, for the grace periods. For `etna dev` and `--drain-on-stop`.
  void StopAll(const std::vector<nlohmann::json>& pods);

  // Node.status.nodeInfo.containerRuntimeVersion of the backend.
  std::string Version() const { return options_.backend->Version(); }

  // The pods with at least one running container.
  std::vector<RunningPod> Running() const;

  // The log file of a container's current or previous run.
  Result<std::string> LogPath(const std::string& ns, const std::string& pod,
                              const std::string& container, bool previous) const;
  // How to run a command in a running container (kubectl exec), with the pod's uid.
  struct Exec {
    std::string pod_uid;
    ProbeTarget target;
  };
  Result<Exec> ExecTarget(const std::string& ns, const std::string& pod,
                          const std::string& container) const;

 private:
  PodRunner* RunnerFor(const std::string& uid);
  // The wall clock's time, after moving every runner's deadlines by any step it took since the
  // last reading; under mu_.
  TimeMs Now();
  // Sync's pass over one listed pod; under mu_.
  void SyncPod(const nlohmann::json& pod, TimeMs now);
  // Kills the pods not in `listed` (uids) and forgets them once stopped; under mu_.
  void KillUnlisted(const std::set<std::string>& listed, TimeMs now);
  // Every storage_check_ms, evicts a pod over its ephemeral-storage limits (storage_limits.h).
  void CheckStorage(PodRunner* runner, const nlohmann::json& pod, const PodContext& ctx,
                    TimeMs now);
  // The pod's runner (one being replaced only when no other), its uid in *uid; under mu_.
  const PodRunner* FindRunner(const std::string& ns, const std::string& pod,
                              std::string* uid) const;
  void Report(PodRunner* runner, const nlohmann::json& pod, const PodContext& ctx, TimeMs now);
  PodContext ContextFor(const std::string& uid) const;
  void RecordEvents(PodRunner* runner, const nlohmann::json& pod);
  // Rewrites the pod's /etc/hosts when the names it resolves changed.
  void WriteHosts(const std::string& uid, const nlohmann::json& pod, const PodContext& ctx);
  // The pod's ServiceAccount files (ServiceAccountDir), rewritten when the token changes.
  void WriteServiceAccount(const std::string& uid, const nlohmann::json& pod,
                           const PodContext& ctx);
  void Remove(PodRunner* runner);

  RuntimeOptions options_;
  SteadyClock steady_clock_;
  std::optional<ClockStepDetector> clock_steps_;
  client::RestClient* rest_;
  client::EventRecorder events_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<PodRunner>> runners_;  // by pod uid
  std::map<std::string, std::string> hosts_written_;           // by pod uid
  std::map<std::string, std::string> token_written_;           // by pod uid
  struct EndedForGood {
    std::string reason, message;
  };
  // By pod uid: pods stopped for good by the node (its fence, a broken GPU); never started again.
  std::map<std::string, EndedForGood> ended_;
};

}  // namespace etna::agent::runtime
