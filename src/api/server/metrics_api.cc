#include "api/server/metrics_api.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <map>

#include "api/server/handler_util.h"
#include "api/types/label_selector.h"
#include "api/types/pod.h"
#include "api/types/pod_metrics.h"
#include "common/resource.h"
#include "common/time.h"
#include "store/keys.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
namespace types = etna::api::types;

constexpr char kMetricsGroup[] = "metrics.k8s.io";
constexpr char kCustomGroup[] = "custom.metrics.k8s.io";
constexpr char kExternalGroup[] = "external.metrics.k8s.io";
constexpr char kScaledObjectLabel[] = "scaledobject.keda.sh/name";

net::http::Response NotFound(std::string message) {
  return ApiError{404, "NotFound", std::move(message)}.ToResponse();
}

std::string Window(int64_t ms) {
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  std::string s = fmt::format("{:.3f}", static_cast<double>(ms) / 1000.0);
  while (s.back() == '0') s.pop_back();
  return s + "s";
}

std::string Cpu(const json& stats) {
  return fmt::format("{}n", stats.value("usageNanoCores", int64_t{0}));
}
std::string Memory(const json& stats) {
  return fmt::format("{}Ki", stats.value("workingSetBytes", int64_t{0}) / 1024);
}
std::string Timestamp(const json& stats, TimeMs fallback) {
  std::string t = stats.value("time", std::string());
  return t.empty() ? FormatRfc3339(fallback) : t;
}
int64_t WindowMs(const json& stats) { return std::max<int64_t>(stats.value("window", 0), 1000); }

ApiResult<codec::LabelSelector> Selector(const net::http::Request& request) {
  auto s = codec::LabelSelector::Parse(request.Query("labelSelector"));
  if (!s.ok()) {
    return ApiError::BadRequest(
        fmt::format("unable to parse requirement: {}", s.status().message()));
  }
  return std::move(s).value();
}

json ListOf(const std::string& api_version, const std::string& kind, json items) {
  return {{"kind", kind},
          {"apiVersion", api_version},
          {"metadata", json::object()},
          {"items", std::move(items)}};
}

// A metrics.k8s.io answer: the one named item as `kind`, or the list of them.
net::http::Response OneOrList(const RequestInfo& ri, const std::string& kind, json items) {
  constexpr char kVersion[] = "metrics.k8s.io/v1beta1";
  if (ri.name.empty()) return ObjectReply(200, ListOf(kVersion, kind + "List", std::move(items)));
  json one = std::move(items[0]);
  one["kind"] = kind;
  one["apiVersion"] = kVersion;
  return ObjectReply(200, one);
}

// "deployments.apps" -> {"apps", "deployments"}; the workloads an Object metric may describe.
std::optional<std::pair<std::string, std::string>> Workload(std::string resource) {
  size_t dot = resource.find('.');
  std::string group = dot == std::string::npos ? "apps" : resource.substr(dot + 1);
  std::string plural = resource.substr(0, dot);
  if (group != "apps") return std::nullopt;
  for (const char* p : {"deployments", "replicasets", "statefulsets", "daemonsets"}) {
    if (plural == p) return std::make_pair(group, plural);
  }
  return std::nullopt;
}

}  // namespace

bool IsMetricsGroup(const std::string& group) {
  return group == kMetricsGroup || group == kCustomGroup || group == kExternalGroup;
}

MetricsApi::MetricsApi(ObjectService* objects, AgentSummaries* summaries, const Clock* clock,
                       TimeMs max_age_ms, MetricRules rules, PrometheusFetcher fetch)
    : objects_(objects),
      summaries_(summaries),
      clock_(clock),
      max_age_ms_(max_age_ms),
      rules_(std::move(rules)),
      fetch_(fetch ? std::move(fetch) : PrometheusFetcher(net::http::QueryPrometheus)),
      pods_(objects->store(),
            store::ResourcePrefix(objects->registry().Find("", "v1", "pods")->StoreResource())),
      replica_sets_(objects->store(),
                    store::ResourcePrefix(
                        objects->registry().Find("apps", "v1", "replicasets")->StoreResource())) {}

std::shared_ptr<const MetricsApi::NamespaceObjects> MetricsApi::ObjectsOf(const std::string& ns) {
  const TimeMs now = clock_->NowMs();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = namespaces_.find(ns);
    if (it != namespaces_.end() && now - it->second->at < max_age_ms_) return it->second;
  }
  auto fresh = std::make_shared<NamespaceObjects>();
  fresh->at = now;
  std::map<std::string, std::string> deployment_of;  // "<ns>/<replicaset>" -> its Deployment
  (void)replica_sets_.ForEach([&](const json& rs) {
    types::ObjectView v(rs);
    if (!ns.empty() && v.ns() != ns) return;
    std::string d = v.ControllerName("Deployment");
    if (!d.empty()) deployment_of[v.ns() + "/" + v.name()] = d;
  });
  (void)pods_.ForEach([&](const json& object) {
    types::Pod pod(object);
    if (!ns.empty() && pod.ns() != ns) return;
    if (pod.node_name().empty() || pod.phase() != "Running") return;
    const json* own = types::Find(object, {"metadata", "labels"});
    json labels = own && own->is_object() ? *own : json::object();
    labels["namespace"] = pod.ns();
    labels["pod"] = pod.name();
    for (std::string kind : {"ReplicaSet", "DaemonSet", "StatefulSet", "Job"}) {
      std::string owner = pod.ControllerName(kind);
      if (owner.empty()) continue;
      if (kind == "ReplicaSet") {
        auto d = deployment_of.find(pod.ns() + "/" + owner);
        if (d != deployment_of.end()) labels["deployment"] = d->second;
      }
      for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      labels[kind] = owner;
    }
    if (labels.contains("deployment")) {
      fresh->by_deployment[labels["deployment"].get<std::string>()].push_back(fresh->pods.size());
    }
    fresh->pods.push_back(object);
    fresh->labels.push_back(std::move(labels));
  });
  std::lock_guard<std::mutex> lock(mu_);
  namespaces_[ns] = fresh;
  return fresh;
}

net::http::Response MetricsApi::Handle(const net::http::Request& request, const RequestInfo& ri) {
  if (ri.verb != "get" && ri.verb != "list") {
    return ApiError::MethodNotAllowed(
               fmt::format("{} serves GET only; {} is not allowed", ri.group, request.method))
        .ToResponse();
  }
  if (ri.group == kMetricsGroup && ri.version == "v1beta1") {
    if (ri.plural == "nodes" && !ri.namespace_in_path && ri.subresource.empty()) {
      return NodeMetrics(request, ri);
    }
    if (ri.plural == "pods" && ri.subresource.empty()) return PodMetrics(request, ri);
  }
  if (ri.group == kCustomGroup && (ri.version == "v1beta1" || ri.version == "v1beta2")) {
    return CustomMetrics(request, ri);
  }
  if (ri.group == kExternalGroup && ri.version == "v1beta1") return ExternalMetrics(request, ri);
  return ApiError::NotFoundPath().ToResponse();
}

std::vector<MetricsApi::PodReading> MetricsApi::Readings(
    const std::string& ns, const codec::LabelSelector* pod_labels,
    const codec::LabelSelector* metric_labels) {
  const auto& registry = objects_->registry();
  std::vector<PodReading> candidates;
  std::shared_ptr<const NamespaceObjects> objects = ObjectsOf(ns);
  std::map<std::string, std::vector<size_t>> by_node;
  // A selector that names a Deployment looks at its pods only.
  std::vector<size_t> all;
  const std::vector<size_t>* indexes = nullptr;
  for (const auto& r : metric_labels ? metric_labels->requirements()
                                     : std::vector<codec::LabelSelector::Requirement>{}) {
    if (r.key != "deployment" || r.op != codec::LabelSelector::Op::kEquals ||
        r.values.size() != 1) {
      continue;
    }
    auto it = objects->by_deployment.find(r.values[0]);
    static const std::vector<size_t> kNone;
    indexes = it == objects->by_deployment.end() ? &kNone : &it->second;
  }
  if (!indexes) {
    for (size_t i = 0; i < objects->pods.size(); ++i) all.push_back(i);
    indexes = &all;
  }
  for (size_t i : *indexes) {
    const json& object = objects->pods[i];
    const json* own = types::Find(object, {"metadata", "labels"});
    if (pod_labels && !pod_labels->Matches(own ? *own : json())) continue;
    if (metric_labels && !metric_labels->Matches(objects->labels[i])) continue;
    by_node[types::Pod(object).node_name()].push_back(candidates.size());
    candidates.push_back({object, json(), objects->labels[i]});
  }
  std::vector<std::string> nodes;
  for (const auto& [name, unused] : by_node) nodes.push_back(name);
  const auto* nodes_info = registry.Find("", "v1", "nodes");
  auto summaries = summaries_->For(nodes, [&](const std::string& name) -> Result<json> {
    auto node = objects_->GetObject(*nodes_info, "", name);
    if (!node.ok()) return Status::NotFound(node.error().message);
    return std::move(node).value();
  });
  for (const auto& [name, indexes] : by_node) {
    auto s = summaries.find(name);
    if (s == summaries.end() || !s->second.ok()) continue;
    std::map<std::string, const json*> by_uid;
    for (const json& p : (*s->second)["pods"]) {
      by_uid[p.value("/podRef/uid"_json_pointer, std::string())] = &p;
    }
    for (size_t i : indexes) {
      auto found = by_uid.find(types::Pod(candidates[i].pod).uid());
      if (found != by_uid.end()) candidates[i].summary = *found->second;
    }
  }
  std::vector<PodReading> out;
  for (PodReading& c : candidates) {
    if (!c.summary.is_null()) out.push_back(std::move(c));
  }
  return out;
}

net::http::Response MetricsApi::NodeMetrics(const net::http::Request& request,
                                            const RequestInfo& ri) {
  auto selector = Selector(request);
  if (!selector.ok()) return selector.error().ToResponse();
  const auto& nodes_info = *objects_->registry().Find("", "v1", "nodes");
  std::vector<json> nodes;
  if (!ri.name.empty()) {
    auto node = objects_->GetObject(nodes_info, "", ri.name);
    if (!node.ok())
      return NotFound(fmt::format("nodemetrics.metrics.k8s.io \"{}\" not found", ri.name));
    nodes.push_back(std::move(*node));
  } else {
    auto all = objects_->List(nodes_info, "");
    if (!all.ok()) return ApiError::FromStatus(all.status()).ToResponse();
    for (json& n : *all) {
      const json* labels = types::Find(n, {"metadata", "labels"});
      if (selector->Matches(labels ? *labels : json())) nodes.push_back(std::move(n));
    }
  }
  std::vector<std::string> names;
  std::map<std::string, const json*> by_name;
  for (const json& node : nodes) {
    names.push_back(types::ObjectView(node).name());
    by_name[names.back()] = &node;
  }
  auto summaries = summaries_->For(
      names, [&](const std::string& name) -> Result<json> { return *by_name.at(name); });
  json items = json::array();
  for (const json& node : nodes) {
    types::ObjectView v(node);
    auto s = summaries.find(v.name());
    if (s == summaries.end() || !s->second.ok()) continue;
    const json& stats = (*s->second)["node"];
    json meta = {{"name", v.name()}, {"creationTimestamp", FormatRfc3339(clock_->NowMs())}};
    if (const json* labels = types::Find(node, {"metadata", "labels"})) meta["labels"] = *labels;
    items.push_back({{"metadata", std::move(meta)},
                     {"timestamp", Timestamp(stats["cpu"], clock_->NowMs())},
                     {"window", Window(WindowMs(stats["cpu"]))},
                     {"usage", {{"cpu", Cpu(stats["cpu"])}, {"memory", Memory(stats["memory"])}}}});
  }
  if (!ri.name.empty() && items.empty()) {
    return NotFound(fmt::format("nodemetrics.metrics.k8s.io \"{}\" not found: {}", ri.name,
                                summaries.begin()->second.status().message()));
  }
  return OneOrList(ri, "NodeMetrics", std::move(items));
}

net::http::Response MetricsApi::PodMetrics(const net::http::Request& request,
                                           const RequestInfo& ri) {
  auto selector = Selector(request);
  if (!selector.ok()) return selector.error().ToResponse();
  json items = json::array();
  for (const PodReading& r : Readings(ri.ns, &*selector, nullptr)) {
    types::Pod pod(r.pod);
    if (!ri.name.empty() && pod.name() != ri.name) continue;
    json containers = json::array();
    for (const json& c : r.summary["containers"]) {
      containers.push_back({{"name", c.value("name", "")},
                            {"usage", {{"cpu", Cpu(c["cpu"])}, {"memory", Memory(c["memory"])}}}});
    }
    json meta = {{"name", pod.name()},
                 {"namespace", pod.ns()},
                 {"creationTimestamp", FormatRfc3339(clock_->NowMs())}};
    if (const json* labels = types::Find(r.pod, {"metadata", "labels"})) meta["labels"] = *labels;
    items.push_back({{"metadata", std::move(meta)},
                     {"timestamp", Timestamp(r.summary["cpu"], clock_->NowMs())},
                     {"window", Window(WindowMs(r.summary["cpu"]))},
                     {"containers", std::move(containers)}});
  }
  if (!ri.name.empty() && items.empty()) {
    return NotFound(fmt::format("podmetrics.metrics.k8s.io \"{}/{}\" not found", ri.ns, ri.name));
  }
  return OneOrList(ri, "PodMetrics", std::move(items));
}

net::http::Response MetricsApi::CustomMetrics(const net::http::Request& request,
                                              const RequestInfo& ri) {
  const std::string& metric = ri.subresource;
  if (!ri.namespace_in_path || ri.name.empty() || metric.empty()) {
    return ApiError::NotFoundPath().ToResponse();
  }
  if (!types::IsPodMetric(metric)) {
    return NotFound(
        fmt::format("the server could not find the metric {} for {}", metric, ri.plural));
  }
  auto selector = Selector(request);
  if (!selector.ok()) return selector.error().ToResponse();
  const std::string api_version = std::string(kCustomGroup) + "/" + ri.version;
  const bool v1beta1 = ri.version == "v1beta1";
  auto item = [&](json described, int64_t milli, const json& stats) {
    json i = {{"describedObject", std::move(described)},
              {"timestamp", Timestamp(stats, clock_->NowMs())},
              {"windowSeconds", WindowMs(stats) / 1000},
              {"value", types::MilliQuantity(milli)}};
    if (v1beta1) {
      i["metricName"] = metric;
    } else {
      i["metric"] = {{"name", metric}};
    }
    return i;
  };
  json items = json::array();
  if (ri.plural == "pods") {
    const codec::LabelSelector* labels = ri.name == "*" ? &*selector : nullptr;
    for (const PodReading& r : Readings(ri.ns, labels, nullptr)) {
      types::Pod pod(r.pod);
      if (ri.name != "*" && pod.name() != ri.name) continue;
      auto value = types::PodMetricMilli(metric, r.summary);
      if (!value) continue;
      items.push_back(item(
          {{"kind", "Pod"}, {"namespace", pod.ns()}, {"name", pod.name()}, {"apiVersion", "/v1"}},
          *value, r.summary["cpu"]));
    }
    if (ri.name != "*" && items.empty()) {
      return NotFound(
          fmt::format("the server could not find the metric {} for pods {}", metric, ri.name));
    }
    return ObjectReply(200, ListOf(api_version, "MetricValueList", std::move(items)));
  }
  auto workload = Workload(ri.plural);
  if (!workload) {
    return NotFound(fmt::format(
        "the server could not find the metric {} for {}: objects of deployments, replicasets, "
        "statefulsets, daemonsets and pods have metrics",
        metric, ri.plural));
  }
  const auto* info = objects_->registry().Find(workload->first, "v1", workload->second);
  if (!info) return NotFound(fmt::format("{} are not served", ri.plural));
  auto object = objects_->GetObject(*info, ri.ns, ri.name);
  if (!object.ok()) return object.error().ToResponse();
  const json* pod_selector = types::Find(*object, {"spec", "selector"});
  int64_t sum = 0, count = 0;
  json stats;
  for (const PodReading& r : Readings(ri.ns, nullptr, nullptr)) {
    const json* labels = types::Find(r.pod, {"metadata", "labels"});
    if (!pod_selector || !types::SelectorMatches(*pod_selector, labels)) continue;
    auto value = types::PodMetricMilli(metric, r.summary);
    if (!value) continue;
    sum += *value;
    ++count;
    stats = r.summary["cpu"];
  }
  if (count == 0) {
    return NotFound(
        fmt::format("the server could not find the metric {} for {} {}: none of its "
                    "pods has a reading",
                    metric, ri.plural, ri.name));
  }
  items.push_back(item({{"kind", info->kind},
                        {"namespace", ri.ns},
                        {"name", ri.name},
                        {"apiVersion", info->GroupVersion()}},
                       sum / count, stats));
  return ObjectReply(200, ListOf(api_version, "MetricValueList", std::move(items)));
}

net::http::Response MetricsApi::ExternalMetrics(const net::http::Request& request,
                                                const RequestInfo& ri) {
  const std::string& metric = ri.plural;
  if (!ri.namespace_in_path || !ri.name.empty()) return ApiError::NotFoundPath().ToResponse();
  auto selector = Selector(request);
  if (!selector.ok()) return selector.error().ToResponse();
  for (const auto& r : selector->requirements()) {
    if (r.key == kScaledObjectLabel && r.op == codec::LabelSelector::Op::kEquals &&
        r.values.size() == 1) {
      return ScaledObjectMetric(ri.ns, r.values[0], metric);
    }
  }
  if (const ExternalMetricRule* rule = rules_.Find(metric))
    return RuleMetric(ri.ns, *selector, *rule);
  if (!types::IsPodMetric(metric)) {
    return NotFound(fmt::format(
        "the server could not find the external metric {}: etna serves the per-pod metrics "
        "gpu_utilization, gpu_memory_used_bytes, gpu_memory_utilization, DCGM_FI_DEV_GPU_UTIL, "
        "DCGM_FI_DEV_FB_USED, cpu_usage and memory_working_set_bytes (each also with _avg), "
        "and those the operator's --metric-rules define",
        metric));
  }
  json items = json::array();
  for (const PodReading& r : Readings(ri.ns, nullptr, &*selector)) {
    auto value = types::PodMetricMilli(metric, r.summary);
    if (!value) continue;
    items.push_back({{"metricName", metric},
                     {"metricLabels", r.labels},
                     {"timestamp", Timestamp(r.summary["cpu"], clock_->NowMs())},
                     {"value", types::MilliQuantity(*value)}});
  }
  return ObjectReply(200, ListOf(std::string(kExternalGroup) + "/v1beta1",
                                 "ExternalMetricValueList", std::move(items)));
}

net::http::Response MetricsApi::ScaledObjectMetric(const std::string& ns, const std::string& name,
                                                   const std::string& metric) {
  const auto* info = objects_->registry().Find("keda.sh", "v1alpha1", "scaledobjects");
  auto so = objects_->GetObject(*info, ns, name);
  if (!so.ok()) {
    return NotFound(fmt::format("the external metric {} of ScaledObject {}/{}: {}", metric, ns,
                                name, so.error().message));
  }
  const json* value = types::Find(*so, {"status", "metricValues", metric});
  if (!value) {
    return NotFound(
        fmt::format("ScaledObject {}/{} has no value for {} yet (it has not been "
                    "polled, or it has no such trigger)",
                    ns, name, metric));
  }
  if (value->contains("error")) {
    return ApiError::Unavailable(fmt::format("the trigger {} of ScaledObject {}/{} failed: {}",
                                             metric, ns, name,
                                             value->value("error", std::string())))
        .ToResponse();
  }
  auto milli = ParseQuantity(value->value("value", std::string()), ResourceUnit::kMilli);
  if (!milli.ok()) return ApiError::Internal("a ScaledObject's value is not a number").ToResponse();
  json item = {{"metricName", metric},
               {"metricLabels", {{kScaledObjectLabel, name}}},
               {"timestamp", value->value("timestamp", FormatRfc3339(clock_->NowMs()))},
               {"value", types::MilliQuantity(*milli)}};
  return ObjectReply(200, ListOf(std::string(kExternalGroup) + "/v1beta1",
                                 "ExternalMetricValueList", json::array({item})));
}

net::http::Response MetricsApi::RuleMetric(const std::string& ns,
                                           const codec::LabelSelector& selector,
                                           const ExternalMetricRule& rule) {
  auto matchers = PromLabelMatchers(ns, selector);
  if (!matchers.ok()) return ApiError::BadRequest(matchers.status().message()).ToResponse();
  net::http::PrometheusQuery q{rules_.prometheus, ExpandRuleQuery(rule.query, *matchers), "", true};
  auto body = fetch_(q);
  auto samples = body.ok() ? net::http::PrometheusSamples(*body, q)
                           : Result<std::vector<net::http::PrometheusSample>>(body.status());
  if (!samples.ok()) {
    return ApiError::Unavailable(
               fmt::format("the external metric {}: {}", rule.name, samples.status().message()))
        .ToResponse();
  }
  json items = json::array();
  const std::string now = FormatRfc3339(clock_->NowMs());
  for (const auto& sample : *samples) {
    items.push_back({{"metricName", rule.name},
                     {"metricLabels", sample.labels},
                     {"timestamp", now},
                     {"value", types::MilliQuantity(std::llround(sample.value * 1000))}});
  }
  return ObjectReply(200, ListOf(std::string(kExternalGroup) + "/v1beta1",
                                 "ExternalMetricValueList", std::move(items)));
}

}  // namespace etna::api::server
