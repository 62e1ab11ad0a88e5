#include "controllers/endpoints.h"

#include <map>
#include <optional>
#include <string>

#include "api/types/pod.h"
#include "api/types/service.h"
#include "controllers/job_pods.h"

namespace etna::controllers {
namespace {

using Json = nlohmann::json;
namespace types = etna::api::types;

// The container port a targetPort names in `pod`, or the number it is.
std::optional<int64_t> ResolveTargetPort(const Json& service_port, const Json& pod) {
  const Json& target = service_port.contains("targetPort") ? service_port["targetPort"]
                                                           : service_port.value("port", Json());
  if (target.is_number_integer()) return target.get<int64_t>();
  if (!target.is_string()) return std::nullopt;
  const std::string& name = target.get_ref<const std::string&>();
  if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit)) return std::stoll(name);
  for (const Json& c : types::Pod(pod).containers()) {
    for (const Json& p : c.value("ports", Json::array())) {
      if (p.value("name", "") == name && p.contains("containerPort")) {
        return p["containerPort"].get<int64_t>();
      }
    }
  }
  return std::nullopt;
}

// The pod's ports for the Service (those whose targetPort resolves).
Json PodPorts(const types::Service& service, const Json& pod) {
  Json ports = Json::array();
  for (const Json& sp : service.ports()) {
    auto port = ResolveTargetPort(sp, pod);
    if (!port) continue;
    Json p = {{"port", *port}, {"protocol", sp.value("protocol", "TCP")}};
    if (sp.contains("name")) p["name"] = sp["name"];
    if (sp.contains("appProtocol")) p["appProtocol"] = sp["appProtocol"];
    ports.push_back(std::move(p));
  }
  return ports;
}

struct Group {
  Json addresses = Json::array();
  Json not_ready = Json::array();
  Json slice_endpoints = Json::array();
};

}  // namespace

ServiceEndpoints BuildServiceEndpoints(const Json& service_json, const std::vector<Json>& pods) {
  types::Service service(service_json);
  const std::string ns = service.ns(), name = service.name();
  std::map<std::string, std::pair<Json, Group>> groups;  // by the ports' text
  for (const Json& pod_json : pods) {
    types::Pod pod(pod_json);
    std::string ip = types::String(pod_json, {"status", "podIP"});
    if (ip.empty() || pod.IsTerminal() || pod.IsDeleting() || pod.ns() != ns ||
        !service.Selects(pod_json)) {
      continue;
    }
    bool ready = pod.IsReady() || service.publish_not_ready_addresses();
    Json address = {{"ip", ip}};
    std::string hostname = types::String(pod_json, {"spec", "hostname"});
    if (!hostname.empty() && types::String(pod_json, {"spec", "subdomain"}) == name) {
      address["hostname"] = hostname;
    }
    if (!pod.node_name().empty()) address["nodeName"] = pod.node_name();
    address["targetRef"] = {
        {"kind", "Pod"}, {"namespace", ns}, {"name", pod.name()}, {"uid", pod.uid()}};
    Json ports = PodPorts(service, pod_json);
    if (!service.ports().empty() && ports.empty()) continue;  // no port of the Service resolves
    auto& [group_ports, group] = groups[ports.dump()];
    group_ports = ports;
    (ready ? group.addresses : group.not_ready).push_back(address);
    Json endpoint = {{"addresses", {ip}},
                     {"conditions", {{"ready", ready}, {"serving", ready}, {"terminating", false}}},
                     {"targetRef", address["targetRef"]}};
    if (address.contains("hostname")) endpoint["hostname"] = address["hostname"];
    if (address.contains("nodeName")) endpoint["nodeName"] = address["nodeName"];
    group.slice_endpoints.push_back(std::move(endpoint));
  }

  Json labels = service.labels();
  if (types::String(service_json, {"spec", "clusterIP"}) == "None") {
    labels["service.kubernetes.io/headless"] = "";
  }
  ServiceEndpoints out;
  out.endpoints = {{"apiVersion", "v1"},
                   {"kind", "Endpoints"},
                   {"metadata",
                    {{"name", name},
                     {"namespace", ns},
                     {"labels", labels},
                     {"annotations", {{kEndpointsManagedAnnotation, "endpoints-controller"}}}}},
                   {"subsets", Json::array()}};
  Json slice_labels = labels;
  slice_labels[kServiceNameLabel] = name;
  slice_labels[kManagedByLabel] = kEndpointSliceManager;
  auto slice = [&](Json ports, Json endpoints) {
    std::string slice_name =
        out.slices.empty() ? name : name + "-" + std::to_string(out.slices.size());
    return Json{
        {"apiVersion", "discovery.k8s.io/v1"},
        {"kind", "EndpointSlice"},
        {"metadata",
         {{"name", slice_name},
          {"namespace", ns},
          {"labels", slice_labels},
          {"ownerReferences", Json::array({ControllerRef(service_json, "v1", "Service")})}}},
        {"addressType", "IPv4"},
        {"endpoints", std::move(endpoints)},
        {"ports", std::move(ports)}};
  };
  for (auto& [key, entry] : groups) {
    auto& [ports, group] = entry;
    Json subset = Json::object();
    if (!group.addresses.empty()) subset["addresses"] = group.addresses;
    if (!group.not_ready.empty()) subset["notReadyAddresses"] = group.not_ready;
    if (!ports.empty()) subset["ports"] = ports;
    out.endpoints["subsets"].push_back(std::move(subset));
    out.slices.push_back(slice(ports, std::move(group.slice_endpoints)));
  }
  if (out.slices.empty()) out.slices.push_back(slice(Json::array(), Json::array()));
  return out;
}

}  // namespace etna::controllers
