#include "agent/node_object.h"

#include <fmt/format.h>

#include <map>

#include "api/types/well_known.h"
#include "client/lease.h"

namespace etna::agent {

nlohmann::json NodeLabels(const NodeReport& r) {
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [k, v] : r.spec.labels) labels[k] = v;
  labels[api::types::kHostnameLabel] = r.spec.name;
  // The kubelet's well-known labels (nodeSelector: {kubernetes.io/os: linux} is everyday YAML).
  std::string arch = r.host.architecture.empty() ? "amd64" : r.host.architecture;
  labels[api::types::kOsLabel] = r.host.operating_system;
  labels[api::types::kArchLabel] = arch;
  labels[api::types::kBetaOsLabel] = r.host.operating_system;
  labels[api::types::kBetaArchLabel] = arch;
  if (!r.spec.switch_name.empty()) labels[api::types::kSwitchLabel] = r.spec.switch_name;
  if (!r.gpus.empty()) {
    labels[api::types::kGpuModelLabel] = r.gpus[0].gpu.model;
    labels[api::types::kGpuCountLabel] = std::to_string(r.gpus.size());
    labels[api::types::kGpuMemoryLabel] = std::to_string(r.gpus[0].gpu.memory_mib);
    bool mig = false;
    for (const auto& g : r.gpus) mig = mig || g.mig_enabled || !g.gpu.mig.empty();
    labels[api::types::kMigCapableLabel] = mig ? "true" : "false";
  }
  return labels;
}

nlohmann::json NodeAnnotations(const NodeReport& r) {
  std::vector<client::NodeGpu> gpus;
  for (const auto& g : r.gpus) gpus.push_back(g.gpu);
  return {{api::types::kNodeGpusAnnotation, client::EncodeNodeGpus(gpus)}};
}

nlohmann::json NodeResources(const NodeReport& r, bool allocatable) {
  int whole = 0;
  std::map<std::string, int> mig;
  for (const auto& g : r.gpus) {
    if (allocatable && !g.gpu.healthy) continue;
    if (g.gpu.mig.empty()) {
      ++whole;
    } else {
      for (const auto& m : g.gpu.mig) ++mig["nvidia.com/mig-" + m.profile];
    }
  }
  nlohmann::json res = {{"cpu", r.spec.cpu},
                        {"memory", r.spec.memory},
                        {"pods", std::to_string(r.spec.pods)},
                        {"nvidia.com/gpu", std::to_string(whole)}};
  for (const auto& [name, n] : mig) res[name] = std::to_string(n);
  return res;
}

nlohmann::json NodeStatusObject(const NodeReport& r, const nlohmann::json& existing_conditions) {
  std::string now = FormatRfc3339(r.now);
  nlohmann::json ready = {
      {"type", "Ready"},          {"status", "True"},
      {"reason", "KubeletReady"}, {"message", "etna agent is posting ready status"},
      {"lastHeartbeatTime", now}, {"lastTransitionTime", now}};
  nlohmann::json conditions = nlohmann::json::array();
  if (existing_conditions.is_array()) {
    for (const auto& c : existing_conditions) {
      if (c.value("type", "") != "Ready") {
        conditions.push_back(c);
      } else if (c.value("status", "") == "True" && c.contains("lastTransitionTime")) {
        ready["lastTransitionTime"] = c["lastTransitionTime"];
      }
    }
  }
  conditions.push_back(ready);
  return {{"capacity", NodeResources(r, false)},
          {"allocatable", NodeResources(r, true)},
          {"conditions", conditions},
          {"addresses",
           {{{"type", "InternalIP"}, {"address", r.internal_ip}},
            {{"type", "Hostname"}, {"address", r.hostname.empty() ? r.spec.name : r.hostname}}}},
          {"daemonEndpoints", {{"kubeletEndpoint", {{"Port", r.port}}}}},
          {"nodeInfo", NodeInfo(r.host, r.container_runtime_version)}};
}

Status UpdateNodeStatus(client::RestClient& rest, const NodeReport& r) {
  std::string path = client::Path("nodes", "", r.spec.name);
  auto node = rest.Get(path);
  if (!node.ok()) return node.status();
  nlohmann::json conditions = node->value("/status/conditions"_json_pointer, nlohmann::json());
  nlohmann::json annotations = NodeAnnotations(r);
  if (node->value("/metadata/annotations"_json_pointer, nlohmann::json::object())
          .value(api::types::kNodeGpusAnnotation, "") !=
      annotations.value(api::types::kNodeGpusAnnotation, "")) {
    auto p = rest.MergePatch(path, {{"metadata", {{"annotations", annotations}}}});
    if (!p.ok()) return p.status();
  }
  auto s = rest.MergePatch(path, {{"status", NodeStatusObject(r, conditions)}}, "status");
  return s.ok() ? Status::Ok() : s.status();
}

Status RegisterNode(client::RestClient& rest, const NodeReport& r) {
  std::string path = client::Path("nodes", "", r.spec.name);
  nlohmann::json meta = {{"labels", NodeLabels(r)}, {"annotations", NodeAnnotations(r)}};
  auto existing = rest.Get(path);
  if (!existing.ok() && existing.status().code() != StatusCode::kNotFound) {
    return existing.status().WithContext("get node " + r.spec.name);
  }
  if (!existing.ok()) {
    nlohmann::json node = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", meta}};
    node["metadata"]["name"] = r.spec.name;
    if (!r.spec.taints.empty()) node["spec"]["taints"] = r.spec.taints;
    auto c = rest.Create(client::Path("nodes"), node);
    if (!c.ok() && c.status().code() != StatusCode::kAlreadyExists) {
      return c.status().WithContext("create node " + r.spec.name);
    }
  } else {
    auto p = rest.MergePatch(path, {{"metadata", meta}});
    if (!p.ok()) return p.status().WithContext("patch node " + r.spec.name);
  }
  return UpdateNodeStatus(rest, r).WithContext("node status " + r.spec.name);
}

Status RenewLease(client::RestClient& rest, const std::string& node, int lease_seconds,
                  TimeMs now) {
  return client::RenewLease(rest, api::types::kNodeLeaseNamespace, node, node, lease_seconds, now);
}

}  // namespace etna::agent
