// The Node and Lease objects an agent writes (the contract in api/types/well_known.h and
// node_gpus.h): labels, the GPU annotation, capacity/allocatable, the Ready condition,
// addresses, the logs port and nodeInfo (host_info.h); and the Lease renewed in kube-node-lease.
// Registration patches only what the agent owns, so taints, cordons and labels an operator set
// stay. Thread-safety: free functions; the RestClient's rules apply.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/gpu/cluster_profile.h"
#include "agent/gpu/gpu_source.h"
#include "agent/host_info.h"
#include "client/rest.h"
#include "common/clock.h"
#include "common/time.h"

namespace etna::agent {

struct NodeReport {
  NodeSpec spec;  // name, cpu, memory, pods, switch, labels, taints (the GPUs come below)
  std::vector<GpuDevice> gpus;
  std::string internal_ip = "127.0.0.1";
  std::string hostname;
  int port = 0;  // the agent's HTTP port (logs)
  TimeMs now = 0;
  HostInfo host;  // nodeInfo and the os/arch labels
  std::string container_runtime_version = "etna-process://0.1";
};

nlohmann::json NodeLabels(const NodeReport& report);
nlohmann::json NodeAnnotations(const NodeReport& report);
// capacity (all devices) or allocatable (healthy devices only).
nlohmann::json NodeResources(const NodeReport& report, bool allocatable);
nlohmann::json NodeStatusObject(const NodeReport& report,
                                const nlohmann::json& existing_conditions);

// Creates the Node (with the profile's taints) or patches its labels and annotations, then its
// status.
Status RegisterNode(client::RestClient& rest, const NodeReport& report);
// Writes the status only (resources, GPUs annotation, Ready heartbeat).
Status UpdateNodeStatus(client::RestClient& rest, const NodeReport& report);
// Creates or renews the node's Lease.
Status RenewLease(client::RestClient& rest, const std::string& node, int lease_seconds, TimeMs now);

}  // namespace etna::agent
