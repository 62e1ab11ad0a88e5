#include "agent/peer_hosts.h"

#include <fmt/format.h>

#include <set>

#include "api/types/well_known.h"
#include "common/clock_steps.h"
#include "common/strings.h"

namespace etna::agent {
namespace {

using nlohmann::json;
using runtime::HostEntry;

constexpr TimeMs kPeersMaxAgeMs = 30'000;
constexpr TimeMs kPeersUnresolvedMaxAgeMs = 1'000;
constexpr TimeMs kEndpointsMaxAgeMs = 10'000;
constexpr TimeMs kNodeIpMaxAgeMs = 300'000;

std::string Str(const json& object, const json::json_pointer& pointer) {
  return object.contains(pointer) && object.at(pointer).is_string()
             ? object.at(pointer).get<std::string>()
             : std::string();
}

std::string JobOf(const json& pod) {
  const json& labels = pod.value("/metadata/labels"_json_pointer, json::object());
  return labels.is_object() ? labels.value(api::types::kJobNameLabel, "") : "";
}

std::string InternalIp(const json& node) {
  for (const json& a : node.value("/status/addresses"_json_pointer, json::array())) {
    if (a.value("type", "") == "InternalIP") return a.value("address", "");
  }
  return "";
}

// The address a peer resolves to; "" while it has none.
std::string PeerAddress(const json& peer, const std::map<std::string, std::string>& node_ips) {
  std::string ip = Str(peer, "/status/podIP"_json_pointer);
  if (!ip.empty()) return ip;
  auto it = node_ips.find(Str(peer, "/spec/nodeName"_json_pointer));
  return it == node_ips.end() ? "" : it->second;
}

bool Gone(const json& pod) {
  std::string phase = Str(pod, "/status/phase"_json_pointer);
  return pod.contains("/metadata/deletionTimestamp"_json_pointer) || phase == "Succeeded" ||
         phase == "Failed";
}

}  // namespace

std::vector<HostEntry> PeerHostEntries(const json& pod, const std::vector<json>& peers,
                                       const std::map<std::string, std::string>& node_ips,
                                       const std::vector<json>& endpoints) {
  std::vector<HostEntry> out;
  std::string self = Str(pod, "/metadata/uid"_json_pointer);
  std::string ns = Str(pod, "/metadata/namespace"_json_pointer);
  for (const json& peer : peers) {
    if (Str(peer, "/metadata/uid"_json_pointer) == self || Gone(peer)) continue;
    out.push_back({PeerAddress(peer, node_ips), runtime::PodHostNames(peer)});
  }
  for (const json& ep : endpoints) {
    std::string svc = Str(ep, "/metadata/name"_json_pointer);
    if (svc.empty()) continue;
    std::string fqdn = fmt::format("{}.{}.svc.{}", svc, ns, runtime::kClusterDomain);
    std::set<std::string> seen;
    for (const json& subset : ep.value("subsets", json::array())) {
      for (const json& a : subset.value("addresses", json::array())) {
        std::string ip = a.value("ip", "");
        if (ip.empty()) continue;
        if (seen.insert(ip).second) {
          out.push_back({ip, {fqdn, svc + "." + ns + ".svc", svc + "." + ns, svc}, true});
        }
        std::string hostname = a.value("hostname", "");
        if (!hostname.empty()) {
          out.push_back({ip, {hostname + "." + fqdn, hostname + "." + svc}, true});
        }
      }
    }
  }
  return out;
}

const std::vector<json>& PeerHosts::Read(Listed& cached, const std::string& path,
                                         const std::string& query, TimeMs max_age_ms) {
  TimeMs now = clock_->NowMs();
  if (cached.ever && !AgedOut(now, cached.read_ms, std::min(max_age_ms, cached.max_age_ms))) {
    return cached.items;
  }
  auto listed = rest_->List(path, query);
  cached.read_ms = now;
  cached.max_age_ms = max_age_ms;
  cached.ever = true;
  if (listed.ok()) cached.items = std::move(*listed);
  return cached.items;
}

std::map<std::string, std::string> PeerHosts::NodeIps(const std::vector<json>& peers) {
  std::map<std::string, std::string> out;
  TimeMs now = clock_->NowMs();
  for (const json& peer : peers) {
    std::string node = Str(peer, "/spec/nodeName"_json_pointer);
    if (node.empty() || out.count(node)) continue;
    auto& [ip, read_ms] = node_ips_[node];
    if (ip.empty() || AgedOut(now, read_ms, kNodeIpMaxAgeMs)) {
      auto got = rest_->Get(client::Path("nodes", "", node));
      if (got.ok()) ip = InternalIp(*got);
      read_ms = now;
    }
    out[node] = ip;
  }
  return out;
}

std::vector<HostEntry> PeerHosts::For(const json& pod) {
  std::string ns = Str(pod, "/metadata/namespace"_json_pointer);
  std::string job = JobOf(pod);
  static const std::vector<json> kNoPeers;
  const std::vector<json>* peers = &kNoPeers;  // the cached list itself: asked every sync
  std::map<std::string, std::string> node_ips;
  if (!job.empty()) {
    Listed& cached = jobs_[ns + "/" + job];
    std::string query =
        "labelSelector=" + QueryEscape(std::string(api::types::kJobNameLabel) + "=" + job);
    // Asked again soon while a peer has no address yet (just created, not yet bound).
    TimeMs max_age = cached.items.empty() ? kPeersUnresolvedMaxAgeMs : kPeersMaxAgeMs;
    peers = &Read(cached, client::Path("pods", ns), query, max_age);
    node_ips = NodeIps(*peers);
    for (const json& peer : *peers) {
      if (!Gone(peer) && PeerAddress(peer, node_ips).empty()) {
        cached.max_age_ms = kPeersUnresolvedMaxAgeMs;
      }
    }
  }
  const auto& endpoints =
      Read(endpoints_[ns], client::Path("endpoints", ns), "", kEndpointsMaxAgeMs);
  return PeerHostEntries(pod, *peers, node_ips, endpoints);
}

void PeerHosts::Retain(const std::vector<json>& pods) {
  std::set<std::string> jobs, namespaces;
  for (const json& pod : pods) {
    std::string ns = Str(pod, "/metadata/namespace"_json_pointer);
    namespaces.insert(ns);
    if (std::string job = JobOf(pod); !job.empty()) jobs.insert(ns + "/" + job);
  }
  std::erase_if(jobs_, [&](const auto& e) { return !jobs.count(e.first); });
  std::erase_if(endpoints_, [&](const auto& e) { return !namespaces.count(e.first); });
}

}  // namespace etna::agent
