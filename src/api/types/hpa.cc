#include "api/types/hpa.h"

#include <fmt/format.h>

#include "common/resource.h"

namespace etna::api::types {
namespace {

// A quantity given as a string ("70", "500m") or a number.
Result<int64_t> Milli(const Json& value, const std::string& field) {
  std::string text = value.is_string()   ? value.get<std::string>()
                     : value.is_number() ? value.dump()
                                         : std::string();
  auto parsed = ParseQuantity(text, ResourceUnit::kMilli);
  if (!parsed.ok()) {
    return Status::InvalidArgument(fmt::format("{}: not a quantity: {}", field, value.dump()));
  }
  return *parsed;
}

Result<HpaMetricTarget> Target(const Json& target, const std::string& field) {
  HpaMetricTarget t;
  t.type = String(target, {"type"});
  if (t.type == "Utilization") {
    auto u = IntegerIfSet(target, {"averageUtilization"});
    if (!u) return Status::InvalidArgument(field + ".averageUtilization: required");
    t.average_utilization = static_cast<int32_t>(*u);
  } else if (t.type == "Value" || t.type == "AverageValue") {
    const char* key = t.type == "Value" ? "value" : "averageValue";
    const Json* v = Find(target, {key});
    if (!v) return Status::InvalidArgument(fmt::format("{}.{}: required", field, key));
    ETNA_ASSIGN_OR_RETURN(int64_t milli, Milli(*v, field + "." + key));
    (t.type == "Value" ? t.value_milli : t.average_value_milli) = milli;
  } else {
    return Status::InvalidArgument(
        fmt::format("{}.type: \"{}\": must be Utilization, Value or AverageValue", field, t.type));
  }
  return t;
}

HpaScalingRules Rules(const Json* rules, bool up) {
  HpaScalingRules r;
  r.stabilization_window_seconds = up ? 0 : 300;
  if (up) {
    r.policies = {{"Pods", 4, 15}, {"Percent", 100, 15}};
  } else {
    r.policies = {{"Percent", 100, 15}};
  }
  if (!rules || !rules->is_object()) return r;
  if (auto w = IntegerIfSet(*rules, {"stabilizationWindowSeconds"})) {
    r.stabilization_window_seconds = static_cast<int32_t>(*w);
  }
  r.select_policy = String(*rules, {"selectPolicy"}, "Max");
  const Json* policies = Find(*rules, {"policies"});
  if (policies && policies->is_array() && !policies->empty()) {
    r.policies.clear();
    for (const Json& p : *policies) {
      r.policies.push_back({String(p, {"type"}), static_cast<int32_t>(Integer(p, {"value"})),
                            static_cast<int32_t>(Integer(p, {"periodSeconds"}, 15))});
    }
  }
  return r;
}

}  // namespace

Result<std::vector<HpaMetric>> HorizontalPodAutoscaler::metrics() const {
  std::vector<HpaMetric> out;
  const Json* list = Find(json(), {"spec", "metrics"});
  if (!list || !list->is_array() || list->empty()) {
    HpaMetric cpu;
    cpu.type = "Resource";
    cpu.name = "cpu";
    cpu.target.type = "Utilization";
    cpu.target.average_utilization = 80;
    cpu.spec = {
        {"type", "Resource"},
        {"resource",
         {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 80}}}}}};
    out.push_back(std::move(cpu));
    return out;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& m = (*list)[i];
    const std::string field = fmt::format("spec.metrics[{}]", i);
    HpaMetric metric;
    metric.type = String(m, {"type"});
    metric.spec = m;
    std::string member;
    if (metric.type == "Resource") member = "resource";
    if (metric.type == "ContainerResource") member = "containerResource";
    if (metric.type == "Pods") member = "pods";
    if (metric.type == "Object") member = "object";
    if (metric.type == "External") member = "external";
    if (member.empty()) {
      return Status::InvalidArgument(fmt::format(
          "{}.type: \"{}\": must be Resource, ContainerResource, Pods, Object or External", field,
          metric.type));
    }
    const Json* source = Find(m, {member});
    if (!source || !source->is_object()) {
      return Status::InvalidArgument(fmt::format("{}.{}: required", field, member));
    }
    if (metric.type == "Resource" || metric.type == "ContainerResource") {
      metric.name = String(*source, {"name"});
      metric.container = String(*source, {"container"});
    } else {
      metric.name = String(*source, {"metric", "name"});
      if (const Json* sel = Find(*source, {"metric", "selector"})) metric.selector = *sel;
    }
    if (metric.type == "Object") {
      metric.object_api_version = String(*source, {"describedObject", "apiVersion"});
      metric.object_kind = String(*source, {"describedObject", "kind"});
      metric.object_name = String(*source, {"describedObject", "name"});
    }
    if (metric.name.empty()) {
      return Status::InvalidArgument(
          fmt::format("{}.{}: the metric's name is required", field, member));
    }
    ETNA_ASSIGN_OR_RETURN(metric.target,
                          Target(Object(*source, {"target"}), field + "." + member + ".target"));
    out.push_back(std::move(metric));
  }
  return out;
}

HpaBehavior HorizontalPodAutoscaler::behavior() const {
  return {Rules(Find(json(), {"spec", "behavior", "scaleUp"}), true),
          Rules(Find(json(), {"spec", "behavior", "scaleDown"}), false)};
}

}  // namespace etna::api::types
