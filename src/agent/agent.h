// Agent: one node's agent — registers its Node (resources, GPUs, labels) and keeps it current,
// renews its Lease every leaseDuration/4, runs the pods bound to it as processes
// (runtime/runtime.h), and serves their logs over HTTP. Several Agents can run in one process
// (`etna dev`: one per profile node), each with its own data dir; they share nothing.
// Stop() (and the destructor) leave the containers running — a later Agent on the same data
// dir adopts them — unless AgentOptions::stop_pods asks it to stop them first.
// A pod holding a GPU that reports a critical XID or vanishes is failed at once (reason
// UnhealthyGPU, the message naming the GPU and the XID) and never restarted on it; the Node
// shows the GPU unhealthy, so nothing new lands on it.
// Its HTTP port also serves /metrics (the GPUs' readings as dcgm-exporter writes them, each
// attributed to the pods holding the device), /stats/summary (CPU, memory and GPUs of the node
// and its pods: stats_summary.h), /healthz, and /readyz: ready once the Node is registered and
// the pod informer has synced.
// On simulated GPUs a pod drives its GPUs' utilization through the file its
// ETNA_GPU_UTILIZATION_FILE names (runtime/pod_env.h); every reading reads those files anew.
// Each pod resolves its job's peers and its namespace's Services (peer_hosts.h), and gets its
// ServiceAccount's token (pod_tokens.h) when the API's address is given.
// Thread-safety: Start/Stop from the owner thread; port() from any thread after Start.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/gpu/cluster_profile.h"
#include "agent/gpu/gpu_holders.h"
#include "agent/gpu/gpu_source.h"
#include "agent/node_object.h"
#include "agent/peer_hosts.h"
#include "agent/pod_tokens.h"
#include "agent/runtime/process_usage.h"
#include "agent/runtime/runc_backend.h"
#include "client/transport.h"
#include "common/clock.h"
#include "net/http/message.h"

namespace etna::net::http {
class HttpServer;
}
namespace etna::client {
class Informer;
class RestClient;
}  // namespace etna::client

namespace etna::agent {
namespace runtime {
class Runtime;
}  // namespace runtime

struct AgentOptions {
  // The node: name, cpu, memory, pods, switch, labels, taints. Its `gpus` are ignored: the
  // GPU source reports them.
  NodeSpec node;
  client::TransportFactory transports;    // required
  std::unique_ptr<GpuSource> gpu_source;  // null: a node without GPUs
  std::string data_dir;                   // required; pods' state and logs live here
  std::string listen = "127.0.0.1:0";     // the logs endpoint; port 0 picks one
  std::string internal_ip = "127.0.0.1";
  // The API server as pods reach it (host, port, CA); empty host: pods get no ServiceAccount
  // token and no KUBERNETES_SERVICE_HOST.
  std::string api_host;
  uint16_t api_port = 0;
  std::string api_ca_pem;
  int lease_seconds = 40;
  // The fence: when no renewal sent within the last lease_seconds minus this margin has
  // succeeded (measured on monotonic_clock), the node's pods are stopped (Runtime::Fence) before
  // the node controller, which waits the lease duration plus its grace, could declare them lost
  // and have them placed again elsewhere. 0: a quarter of the lease. Pods get at most half the
  // margin as their grace period.
  std::chrono::milliseconds fence_margin{0};
  const Clock* monotonic_clock = nullptr;  // default: the steady clock
  // Overrides leaseDuration/4 as the heartbeat period (tests use sub-second periods).
  std::chrono::milliseconds heartbeat_period{0};
  std::chrono::milliseconds sync_period{200};  // how often pods are re-checked without events
  std::string shim_binary;  // default: etna-agent-shim beside this executable, else this one
  TimeMs restart_backoff_initial_ms = 10'000;
  TimeMs restart_backoff_max_ms = 300'000;
  TimeMs storage_check_ms = 10'000;  // how often pods' ephemeral storage is judged
  // A container's log is rotated past this size, keeping this many files (log_rotation.h).
  int64_t container_log_max_bytes = int64_t{10} << 20;
  int container_log_max_files = 5;
  const Clock* clock = nullptr;  // default: the system clock
  // The node's usage is the sum of its pods' (a simulated node on a shared host), not the
  // host's (/proc/stat, /proc/meminfo).
  bool node_usage_from_pods = false;
  // How pods' containers run: "process" (host processes) or "container" (runc; `runc` holds
  // its settings, data_dir, clock and secrets filled in by the Agent). A set `backend` wins.
  std::string runtime = "process";
  runtime::RuncOptions runc;
  std::shared_ptr<runtime::Backend> backend;
  // Stop() stops every pod first (grace periods honoured; each reported Failed, reason
  // Shutdown) instead of leaving them for the next agent to adopt.
  bool stop_pods = false;
};

// Options for simulating one node of a cluster profile (`etna dev` makes one Agent per node of
// LoadClusterProfile's list): the declared GPUs as an InventoryGpuSource, data dir
// <data_root>/<node name>, other fields at their defaults.
AgentOptions SimulatedNodeOptions(const NodeSpec& node, client::TransportFactory transports,
                                  const std::string& data_root);

// The pods' supervisor for an agent running as `self_exe`: etna-agent-shim beside it when that is
// an executable (the same RunShim in a small program: about 1 ms of CPU to start against 6 ms
// for etna, which loads every library the server and scheduler need, and a fraction of its
// memory while a pod runs), else `self_exe`, whose `agent-shim` command runs it.
std::string ShimBinaryFor(const std::string& self_exe);

class Agent {
 public:
  explicit Agent(AgentOptions options);
  ~Agent();
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // Serves HTTP, registers the node and its lease, then runs pods. Fails (and starts nothing)
  // on bad options, an unusable listen address or when the node cannot be registered.
  Status Start();
  void Stop();
  uint16_t port() const;
  const std::string& node_name() const { return options_.node.name; }
  // The backend's containerRuntimeVersion (after Start).
  std::string runtime_version() const;

 private:
  void HeartbeatLoop();
  // Whether the fence is up now (no renewal sent within lease - margin has succeeded); logs the
  // change. Holds mu_.
  bool FencedLocked();
  TimeMs FenceMarginMs() const;
  // Ends for good (Runtime::EndForGood, reason UnhealthyGPU) the pods holding a GPU that turned
  // unhealthy (a critical XID: 79 fallen off the bus, 48 double-bit ECC, ...) or that the GPU
  // source no longer reports.
  void EndPodsOnBrokenGpus(const GpuHolders& holders);
  void PodLoop();
  std::vector<GpuDevice> RefreshGpus();
  nlohmann::json StatsSummary();
  // The last reading with what follows from the holders (simulated sources); holds mu_.
  std::vector<GpuDevice> CurrentGpusLocked() const;
  nlohmann::json GpuReport() const;
  std::string NotReadyReason() const;  // "" when ready
  // Whether `request` carries the API server's ticket for this node's pod `pod_uid` and
  // `subresource` (a TokenReview with audience "etna-agent": api/server/pod_streams.h).
  Status CheckStreamTicket(const net::http::Request& request, const std::string& pod_uid,
                           const std::string& subresource);
  NodeReport MakeReport(std::vector<GpuDevice> gpus, TimeMs now) const;

  AgentOptions options_;
  SystemClock system_clock_;
  const Clock* clock_;
  std::unique_ptr<client::Transport> rest_transport_;
  std::unique_ptr<client::RestClient> rest_;
  std::unique_ptr<client::Transport> informer_transport_;
  std::unique_ptr<client::Informer> informer_;
  std::unique_ptr<PeerHosts> peer_hosts_;  // used by runtime_'s sync only
  std::unique_ptr<PodTokens> pod_tokens_;  // likewise
  std::unique_ptr<runtime::Runtime> runtime_;
  std::unique_ptr<net::http::HttpServer> http_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool pods_changed_ = false;
  HostInfo host_;                // read once at Start
  std::vector<GpuDevice> gpus_;  // the last reading
  GpuHolders holders_;           // from the pods of the last sync
  TimeMs gpus_read_ms_ = 0;      // when gpus_ was read
  std::mutex source_mu_;         // one Devices() call at a time
  std::mutex sampler_mu_;
  runtime::UsageSampler sampler_;
  bool registered_ = false;
  SteadyClock steady_clock_;
  const Clock* monotonic_ = nullptr;
  TimeMs renewal_sent_ms_ = 0;  // monotonic: when the last successful renewal was sent
  bool fenced_ = false;
  std::string fence_message_;  // what the fenced pods' status says
  bool pods_synced_ = false;
  std::thread heartbeat_;
  std::thread pods_;
  bool started_ = false;
};

}  // namespace etna::agent
