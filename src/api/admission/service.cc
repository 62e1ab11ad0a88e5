// Admission of core/v1 Service. etna runs no service proxy and allocates no virtual IPs: pods
// use the host network and a Service's name resolves to the addresses of the pods it selects
// (agent/peer_hosts.h). So every Service is headless: spec.clusterIP defaults to "None" and
// any other address is refused, as are the types that need a proxy (NodePort, LoadBalancer)
// or DNS (ExternalName), and a port whose numeric targetPort differs from it (nothing would
// forward one to the other). Ports are checked as Kubernetes does (1-65535, protocol, unique
// names when several).
#include <fmt/format.h>

#include <set>

#include "api/admission/kinds.h"

namespace etna::api::admission::internal {

namespace {

const std::vector<std::string> kProtocols = {"TCP", "UDP", "SCTP"};

void AdmitServicePorts(const Json& spec, Errors& errs) {
  const Json* ports = GetArray(spec, "ports", "spec", errs);
  if (!ports) return;
  std::set<std::string> names;
  for (size_t i = 0; i < ports->size(); ++i) {
    std::string path = Index("spec.ports", i);
    const Json& p = (*ports)[i];
    auto name = GetString(p, "name", path, errs);
    if (ports->size() > 1 && (!name || name->empty())) errs.Required(Child(path, "name"));
    if (name && !name->empty() && !names.insert(*name).second) {
      errs.Duplicate(Child(path, "name"), *name);
    }
    const Json& port = p.value("port", Json());
    if (!port.is_number_integer() || port.get<int64_t>() < 1 || port.get<int64_t>() > 65535) {
      errs.Invalid(Child(path, "port"), port, "must be between 1 and 65535, inclusive");
      continue;
    }
    auto protocol = GetString(p, "protocol", path, errs);
    if (protocol &&
        std::find(kProtocols.begin(), kProtocols.end(), *protocol) == kProtocols.end()) {
      errs.NotSupported(Child(path, "protocol"), *protocol, kProtocols);
    }
    const Json& target = p.value("targetPort", Json());
    if (target.is_number_integer() && target != port) {
      errs.Invalid(Child(path, "targetPort"), target,
                   fmt::format("must equal port {}: etna's pods use the host network and a "
                               "Service name resolves to its pods' addresses, so nothing "
                               "forwards one port to another",
                               port.get<int64_t>()));
    }
    if (p.contains("nodePort")) {
      errs.Forbidden(Child(path, "nodePort"), "etna runs no service proxy to open node ports");
    }
  }
}

}  // namespace

void AdmitService(Context& c) {
  Errors& errs = c.errs;
  Json& object = c.object;
  if (!object.contains("spec") || !object["spec"].is_object()) object["spec"] = Json::object();
  Json& spec = object["spec"];
  std::string type = spec.value("type", "ClusterIP");
  if (type != "ClusterIP") {
    errs.NotSupported("spec.type", type, {"ClusterIP"});
  }
  const Json& cluster_ip = spec.value("clusterIP", Json(""));
  if (cluster_ip == "" || cluster_ip.is_null()) {
    spec["clusterIP"] = "None";
  } else if (cluster_ip != "None") {
    errs.Invalid("spec.clusterIP", cluster_ip,
                 "etna allocates no virtual IPs: every Service is headless (None) and its name "
                 "resolves to the addresses of the pods it selects");
  }
  spec["clusterIPs"] = Json::array({"None"});
  spec["type"] = "ClusterIP";
  if (!spec.contains("sessionAffinity")) spec["sessionAffinity"] = "None";
  if (const Json* selector = GetObject(spec, "selector", "spec", errs)) {
    for (const auto& [k, v] : selector->items()) {
      if (!v.is_string()) errs.Invalid(Key("spec.selector", k), v, "must be a string");
    }
  }
  AdmitServicePorts(spec, errs);
  if (auto* ports = spec.contains("ports") && spec["ports"].is_array() ? &spec["ports"] : nullptr) {
    for (Json& p : *ports) {
      if (p.is_object() && !p.contains("protocol")) p["protocol"] = "TCP";
      if (p.is_object() && !p.contains("targetPort") && p.contains("port"))
        p["targetPort"] = p["port"];
    }
  }
}

}  // namespace etna::api::admission::internal
