// A pod's /etc/hosts: localhost, the pod's own names, the names it resolves (its job's peers
// and its namespace's Services: agent/peer_hosts.h), then its hostAliases — the file the
// kubelet writes, with what a cluster DNS would answer added as lines, since etna's pods use the
// host's network and no DNS server is run. RuncBackend bind-mounts the file into every
// container, so it is rewritten in place (same inode) when the names change; the process backend
// puts the addresses into env values that name a host (ResolveHostValues).
// Own names: "<hostname>.<subdomain>.<ns>.svc.cluster.local <hostname>.<subdomain> <hostname>"
// with a subdomain, else "<hostname>" (spec.hostname, default the pod's name).
// Thread-safety: pure functions, except WritePodHosts.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace etna::agent::runtime {

inline constexpr char kClusterDomain[] = "cluster.local";

// One line of /etc/hosts.
struct HostEntry {
  std::string ip;  // "" for a peer not placed yet: no line in /etc/hosts

  std::vector<std::string> names;
  // A Service's: only its qualified names (with a '.') stand for it in env values, so a value
  // such as "worker" stays as written when a Service is called that.
  bool service = false;
  bool operator==(const HostEntry&) const = default;
};

// The pod's hostname (spec.hostname, else its name) and its names, most qualified first.
std::string PodHostname(const nlohmann::json& pod);
std::vector<std::string> PodHostNames(const nlohmann::json& pod);

// The whole file for `pod` at `pod_ip` with `resolved` (peers, Services) after its own line.
std::string PodHostsFile(const nlohmann::json& pod, const std::string& pod_ip,
                         const std::vector<HostEntry>& resolved);

// <pod dir>/etc/hosts (and etc/hostname), rewritten in place when `content` differs.
std::string PodHostsPath(const std::string& pod_dir);
Status WritePodHosts(const std::string& pod_dir, const std::string& hostname,
                     const std::string& content);

// The values of `variables` in `env` that are exactly a name the pod resolves (its own or
// `resolved`'s; the first address wins) become that address: for host processes, which do not
// read the pod's /etc/hosts and so cannot learn it later. Unavailable, naming the variable and
// the host, while such a name is a peer's that has no address yet (an entry with ip "").
Status ResolveHostValues(const nlohmann::json& pod, const std::string& pod_ip,
                         const std::vector<HostEntry>& resolved,
                         const std::vector<std::string>& variables,
                         std::vector<std::pair<std::string, std::string>>* env);

}  // namespace etna::agent::runtime
