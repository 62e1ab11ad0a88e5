// PeerHosts: the names a pod on this node resolves besides its own (runtime/pod_hosts.h writes
// them into its /etc/hosts), as a cluster DNS would answer them:
//  - the pods of its Volcano job (label volcano.sh/job-name): "<hostname>.<subdomain>.<ns>.svc.
//    cluster.local <hostname>.<subdomain> <hostname> [<pod name>]" — so the seed's
//    CHIEF_SERVICE (a pod name) and the pytorch plugin's MASTER_ADDR ("<pod>.<job>") resolve;
//    a peer's address is its podIP, else its node's InternalIP (pods use the host network, so a
//    peer just bound resolves before it starts);
//  - the Services of its namespace, from their Endpoints (endpoints controller): every ready
//    address under "<svc>.<ns>.svc.cluster.local <svc>.<ns>.svc <svc>.<ns> <svc>", and
//    "<hostname>.<svc>..." for an address with a hostname (headless Services). etna allocates no
//    virtual IPs: every Service resolves to its endpoints, as a headless one does.
// What it reads is cached: a job's peers are listed again after 30 s (after 1 s while one has
// no address yet), a namespace's Endpoints after 10 s, a node's address after 5 minutes; a
// failed read keeps what was read before. Reads need the agent's rights (node_access.h).
// Thread-safety: one thread (the runtime's sync).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/runtime/pod_hosts.h"
#include "client/rest.h"
#include "common/clock.h"

namespace etna::agent {

// The entries for `pod` from what was read: its job's `peers` (the pod itself and ended peers
// are skipped; one not placed yet has ip ""), the nodes' InternalIPs by name, and its
// namespace's `endpoints`.
std::vector<runtime::HostEntry> PeerHostEntries(const nlohmann::json& pod,
                                                const std::vector<nlohmann::json>& peers,
                                                const std::map<std::string, std::string>& node_ips,
                                                const std::vector<nlohmann::json>& endpoints);

class PeerHosts {
 public:
  PeerHosts(client::RestClient* rest, const Clock* clock) : rest_(rest), clock_(clock) {}

  // The entries for `pod` now, reading what is stale.
  std::vector<runtime::HostEntry> For(const nlohmann::json& pod);
  // Drops what no pod of `pods` needs any more.
  void Retain(const std::vector<nlohmann::json>& pods);

 private:
  struct Listed {
    std::vector<nlohmann::json> items;
    TimeMs read_ms = 0;
    TimeMs max_age_ms = 0;
    bool ever = false;
  };
  // Lists `path` (?query) again when older than its max age; keeps the old items on failure.
  const std::vector<nlohmann::json>& Read(Listed& cached, const std::string& path,
                                          const std::string& query, TimeMs max_age_ms);
  std::map<std::string, std::string> NodeIps(const std::vector<nlohmann::json>& peers);

  client::RestClient* rest_;
  const Clock* clock_;
  std::map<std::string, Listed> jobs_;                              // by "<ns>/<job>"
  std::map<std::string, Listed> endpoints_;                         // by namespace
  std::map<std::string, std::pair<std::string, TimeMs>> node_ips_;  // by node: address, read
};

}  // namespace etna::agent
