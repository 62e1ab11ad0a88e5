// Deployment, ReplicaSet, DaemonSet and HorizontalPodAutoscaler cells, as kubectl's printers
// compute them (printDeployment, printReplicaSet, printDaemonSet, printHorizontalPodAutoscaler /
// formatHPAMetrics).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <utility>
#include <vector>

#include "api/resources/table.h"
#include "api/resources/table_printers.h"
#include "api/types/deployment.h"
#include "api/types/label_selector.h"

namespace etna::api::resources::internal {

namespace {

// A quantity as stored: "500m", "2Gi" or a bare number.
std::string Quantity(const json* q) {
  if (q == nullptr) return "<unknown>";
  return q->is_string() ? q->get<std::string>() : q->dump();
}

// One metric of formatHPAMetrics; `status` may be null.
std::string FormatMetric(const json& spec, const json* status) {
  const std::string type = String(spec, {"type"});
  auto current = [&](std::initializer_list<std::string_view> path) {
    return status != nullptr ? Quantity(Find(*status, path)) : std::string("<unknown>");
  };
  if (type == "External" || type == "Object") {
    const std::string field = type == "External" ? "external" : "object";
    if (const json* avg = Find(spec, {field, "target", "averageValue"})) {
      return fmt::format("{}/{} (avg)", current({field, "current", "averageValue"}), Quantity(avg));
    }
    return fmt::format("{}/{}", current({field, "current", "value"}),
                       Quantity(Find(spec, {field, "target", "value"})));
  }
  if (type == "Pods") {
    return fmt::format("{}/{}", current({"pods", "current", "averageValue"}),
                       Quantity(Find(spec, {"pods", "target", "averageValue"})));
  }
  if (type == "Resource" || type == "ContainerResource") {
    const std::string field = type == "Resource" ? "resource" : "containerResource";
    const std::string name = String(spec, {field, "name"});
    if (const json* avg = Find(spec, {field, "target", "averageValue"})) {
      return fmt::format("{}: {}/{}", name, current({field, "current", "averageValue"}),
                         Quantity(avg));
    }
    std::string now = "<unknown>";
    if (status != nullptr) {
      if (const json* u = Find(*status, {field, "current", "averageUtilization"})) {
        now = fmt::format("{}%", u->is_number() ? u->get<int64_t>() : 0);
      }
    }
    std::string target = "<auto>";
    if (const json* u = Find(spec, {field, "target", "averageUtilization"})) {
      target = fmt::format("{}%", u->is_number() ? u->get<int64_t>() : 0);
    }
    return fmt::format("{}: {}/{}", name, now, target);
  }
  return "<unknown type>";
}

std::string FormatHpaMetrics(const json& hpa) {
  const json& specs = Array(hpa, {"spec", "metrics"});
  const json& statuses = Array(hpa, {"status", "currentMetrics"});
  if (specs.empty()) return "<none>";
  constexpr size_t kMax = 2;
  std::vector<std::string> list;
  for (size_t i = 0; i < specs.size(); ++i) {
    list.push_back(FormatMetric(specs[i], i < statuses.size() ? &statuses[i] : nullptr));
  }
  if (list.size() <= kMax) return fmt::format("{}", fmt::join(list, ", "));
  return fmt::format("{} + {} more...", fmt::join(list.begin(), list.begin() + kMax, ", "),
                     list.size() - kMax);
}

// `cells` followed by the wide columns of a replicated workload.
json WorkloadWideCells(json cells, const api::types::ReplicatedView& view) {
  return WithWideCells(std::move(cells), view.pod_template(), view.selector());
}

}  // namespace

json WithWideCells(json cells, const json& pod_template, const json* selector) {
  std::vector<std::string> names, images;
  for (const json& c : Array(pod_template, {"spec", "containers"})) {
    names.push_back(String(c, {"name"}));
    images.push_back(String(c, {"image"}));
  }
  cells.push_back(fmt::format("{}", fmt::join(names, ",")));
  cells.push_back(fmt::format("{}", fmt::join(images, ",")));
  cells.push_back(api::types::FormatLabelSelector(selector));
  return cells;
}

json DeploymentCells(const json& d, Clock::time_point now) {
  const api::types::Deployment view(d);
  return WorkloadWideCells(
      json::array({view.name(), fmt::format("{}/{}", view.ready_replicas(), view.replicas()),
                   view.updated_replicas(), view.available_replicas(),
                   TimestampSince(Find(d, {"metadata", "creationTimestamp"}), now)}),
      view);
}

json ReplicaSetCells(const json& rs, Clock::time_point now) {
  const api::types::ReplicaSet view(rs);
  return WorkloadWideCells(
      json::array({view.name(), view.replicas(), view.status_replicas(), view.ready_replicas(),
                   TimestampSince(Find(rs, {"metadata", "creationTimestamp"}), now)}),
      view);
}

json DaemonSetCells(const json& ds, Clock::time_point now) {
  const api::types::ReplicatedView view(ds);
  std::map<std::string, std::string> sorted;
  for (const auto& [k, v] :
       api::types::Object(ds, {"spec", "template", "spec", "nodeSelector"}).items()) {
    sorted[k] = v.is_string() ? v.get<std::string>() : "";
  }
  std::vector<std::string> node_selector;
  for (const auto& [k, v] : sorted) node_selector.push_back(k + "=" + v);
  return WorkloadWideCells(
      json::array({view.name(), Integer(ds, {"status", "desiredNumberScheduled"}),
                   Integer(ds, {"status", "currentNumberScheduled"}),
                   Integer(ds, {"status", "numberReady"}),
                   Integer(ds, {"status", "updatedNumberScheduled"}),
                   Integer(ds, {"status", "numberAvailable"}),
                   node_selector.empty() ? std::string("<none>")
                                         : fmt::format("{}", fmt::join(node_selector, ",")),
                   TimestampSince(Find(ds, {"metadata", "creationTimestamp"}), now)}),
      view);
}

json HpaCells(const json& hpa, Clock::time_point now) {
  const std::string reference =
      fmt::format("{}/{}", String(hpa, {"spec", "scaleTargetRef", "kind"}),
                  String(hpa, {"spec", "scaleTargetRef", "name"}));
  const json* min = Find(hpa, {"spec", "minReplicas"});
  const std::string min_pods =
      min != nullptr && min->is_number() ? std::to_string(min->get<int64_t>()) : "<unset>";
  return json::array({String(hpa, {"metadata", "name"}), reference, FormatHpaMetrics(hpa), min_pods,
                      Integer(hpa, {"spec", "maxReplicas"}),
                      Integer(hpa, {"status", "currentReplicas"}),
                      TimestampSince(Find(hpa, {"metadata", "creationTimestamp"}), now)});
}

}  // namespace etna::api::resources::internal
