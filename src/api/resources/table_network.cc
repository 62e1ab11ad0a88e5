// kubectl's printers for Service, Endpoints and EndpointSlice.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "api/resources/table.h"
#include "api/resources/table_printers.h"

namespace etna::api::resources::internal {
namespace {

std::string Age(const json& o, Clock::time_point now) {
  return TimestampSince(Find(o, {"metadata", "creationTimestamp"}), now);
}

// "80/TCP,443/TCP" (kubectl's <port>[:<nodePort>]/<protocol>), "<none>" without ports.
std::string Ports(const json* ports) {
  std::vector<std::string> out;
  if (ports != nullptr && ports->is_array()) {
    for (const json& p : *ports) {
      std::string port = p.contains("port") ? p["port"].dump() : "";
      if (p.contains("nodePort")) port += ":" + p["nodePort"].dump();
      out.push_back(port + "/" + p.value("protocol", "TCP"));
    }
  }
  return out.empty() ? "<none>" : fmt::format("{}", fmt::join(out, ","));
}

// At most three entries, then " + N more...", as kubectl abbreviates lists.
std::string Abbreviated(const std::vector<std::string>& items) {
  if (items.empty()) return "<none>";
  std::vector<std::string> head(items.begin(), items.begin() + std::min<size_t>(3, items.size()));
  std::string out = fmt::format("{}", fmt::join(head, ","));
  if (items.size() > 3) out += fmt::format(" + {} more...", items.size() - 3);
  return out;
}

}  // namespace

json ServiceCells(const json& svc, Clock::time_point now) {
  std::vector<std::string> selector;
  if (const json* sel = Find(svc, {"spec", "selector"}); sel != nullptr && sel->is_object()) {
    for (const auto& [k, v] : sel->items()) selector.push_back(k + "=" + v.get<std::string>());
  }
  std::string external = "<none>";
  if (const json* ips = Find(svc, {"spec", "externalIPs"});
      ips != nullptr && ips->is_array() && !ips->empty()) {
    external = fmt::format("{}", fmt::join(ips->get<std::vector<std::string>>(), ","));
  }
  std::string cluster_ip = String(svc, {"spec", "clusterIP"});
  return json::array(
      {String(svc, {"metadata", "name"}),
       String(svc, {"spec", "type"}).empty() ? "ClusterIP" : String(svc, {"spec", "type"}),
       cluster_ip.empty() ? "<none>" : cluster_ip, external, Ports(Find(svc, {"spec", "ports"})),
       Age(svc, now), selector.empty() ? "<none>" : fmt::format("{}", fmt::join(selector, ","))});
}

json EndpointsCells(const json& ep, Clock::time_point now) {
  std::vector<std::string> items;
  if (const json* subsets = Find(ep, {"subsets"}); subsets != nullptr && subsets->is_array()) {
    for (const json& s : *subsets) {
      for (const json& a : s.value("addresses", json::array())) {
        const json& ports = s.value("ports", json::array());
        if (ports.empty()) items.push_back(a.value("ip", ""));
        for (const json& p : ports) {
          items.push_back(fmt::format("{}:{}", a.value("ip", ""), p.value("port", 0)));
        }
      }
    }
  }
  return json::array({String(ep, {"metadata", "name"}), Abbreviated(items), Age(ep, now)});
}

json EndpointSliceCells(const json& slice, Clock::time_point now) {
  std::vector<std::string> addresses;
  if (const json* eps = Find(slice, {"endpoints"}); eps != nullptr && eps->is_array()) {
    for (const json& e : *eps) {
      for (const json& a : e.value("addresses", json::array())) {
        if (a.is_string()) addresses.push_back(a.get<std::string>());
      }
    }
  }
  std::vector<std::string> ports;
  if (const json* ps = Find(slice, {"ports"}); ps != nullptr && ps->is_array()) {
    for (const json& p : *ps) ports.push_back(p.contains("port") ? p["port"].dump() : "<unset>");
  }
  return json::array({String(slice, {"metadata", "name"}), String(slice, {"addressType"}),
                      ports.empty() ? "<unset>" : fmt::format("{}", fmt::join(ports, ",")),
                      Abbreviated(addresses), Age(slice, now)});
}

}  // namespace etna::api::resources::internal
