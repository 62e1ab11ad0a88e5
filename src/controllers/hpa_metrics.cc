#include "controllers/hpa_metrics.h"

#include <fmt/format.h>

#include "api/resources/registry.h"
#include "common/resource.h"
#include "common/strings.h"
#include "common/time.h"

namespace etna::controllers {
namespace {

using nlohmann::json;

Result<int64_t> Milli(const json& quantity) {
  if (!quantity.is_string()) return Status::InvalidArgument("a metric value is not a quantity");
  return ParseQuantity(quantity.get<std::string>(), ResourceUnit::kMilli);
}

// "20.5s" -> 20500.
TimeMs WindowMs(const json& item) {
  std::string w = item.value("window", std::string());
  return w.empty() ? 0 : static_cast<TimeMs>(std::atof(w.c_str()) * 1000);
}

std::string Query(const std::string& selector) {
  return selector.empty() ? "" : "?labelSelector=" + QueryEscape(selector);
}

}  // namespace

Result<PodMetricValues> RestHpaMetrics::PodResource(const std::string& ns,
                                                    const std::string& selector,
                                                    const std::string& resource,
                                                    const std::string& container) {
  ETNA_ASSIGN_OR_RETURN(
      json list, rest_->Get(fmt::format("/apis/metrics.k8s.io/v1beta1/namespaces/{}/pods{}", ns,
                                        Query(selector))));
  PodMetricValues out;
  for (const json& item : list.value("items", json::array())) {
    int64_t sum = 0;
    bool found = false;
    for (const json& c : item.value("containers", json::array())) {
      if (!container.empty() && c.value("name", "") != container) continue;
      const json* usage =
          c.contains("usage") && c["usage"].contains(resource) ? &c["usage"][resource] : nullptr;
      if (!usage) continue;
      ETNA_ASSIGN_OR_RETURN(int64_t v, Milli(*usage));
      sum += v;
      found = true;
    }
    if (!found) continue;
    out[item.value("/metadata/name"_json_pointer, std::string())] = {
        sum, ParseRfc3339(item.value("timestamp", std::string())).value_or(0), WindowMs(item)};
  }
  if (out.empty()) {
    return Status::NotFound(fmt::format("no metrics returned from resource metrics API"));
  }
  return out;
}

Result<PodMetricValues> RestHpaMetrics::PodMetric(const std::string& ns,
                                                  const std::string& selector,
                                                  const std::string& metric) {
  ETNA_ASSIGN_OR_RETURN(
      json list,
      rest_->Get(fmt::format("/apis/custom.metrics.k8s.io/v1beta2/namespaces/{}/pods/*/{}{}", ns,
                             metric, Query(selector))));
  PodMetricValues out;
  for (const json& item : list.value("items", json::array())) {
    ETNA_ASSIGN_OR_RETURN(int64_t v, Milli(item.value("value", json())));
    out[item.value("/describedObject/name"_json_pointer, std::string())] = {
        v, ParseRfc3339(item.value("timestamp", std::string())).value_or(0),
        item.value("windowSeconds", int64_t{0}) * 1000};
  }
  if (out.empty()) return Status::NotFound(fmt::format("no metrics returned for {}", metric));
  return out;
}

Result<int64_t> RestHpaMetrics::ObjectMetric(const std::string& ns, const std::string& api_version,
                                             const std::string& kind, const std::string& name,
                                             const std::string& metric) {
  const auto* info = api::resources::ResourceRegistry::Default().FindKind(api_version, kind);
  if (!info) {
    return Status::NotFound(fmt::format("etna serves no {} in {}", kind, api_version));
  }
  std::string resource = info->plural + (info->group.empty() ? "" : "." + info->group);
  ETNA_ASSIGN_OR_RETURN(json list, rest_->Get(fmt::format(
                                       "/apis/custom.metrics.k8s.io/v1beta2/namespaces/{}/{}/{}/{}",
                                       ns, resource, name, metric)));
  const json& items = list.value("items", json::array());
  if (items.empty())
    return Status::NotFound(fmt::format("no metric {} for {} {}", metric, kind, name));
  return Milli(items[0].value("value", json()));
}

Result<std::vector<int64_t>> RestHpaMetrics::ExternalMetric(const std::string& ns,
                                                            const std::string& metric,
                                                            const std::string& selector) {
  ETNA_ASSIGN_OR_RETURN(
      json list, rest_->Get(fmt::format("/apis/external.metrics.k8s.io/v1beta1/namespaces/{}/{}{}",
                                        ns, metric, Query(selector))));
  std::vector<int64_t> out;
  for (const json& item : list.value("items", json::array())) {
    ETNA_ASSIGN_OR_RETURN(int64_t v, Milli(item.value("value", json())));
    out.push_back(v);
  }
  if (out.empty())
    return Status::NotFound(fmt::format("no items returned for external metric {}", metric));
  return out;
}

}  // namespace etna::controllers
