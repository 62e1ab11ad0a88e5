#include "controllers/hpa_controller.h"

#include <fmt/format.h>

#include <algorithm>

#include "api/codec/selectors.h"
#include "api/types/hpa.h"
#include "api/types/label_selector.h"
#include "api/types/pod.h"
#include "api/types/pod_metrics.h"
#include "common/time.h"
#include "controllers/status_conditions.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

// The scale subresource of a target etna serves one for.
Result<std::string> ScalePath(const types::HorizontalPodAutoscaler& hpa) {
  const std::string kind = hpa.target_kind();
  std::string resource = kind == "Deployment"   ? "deployments"
                         : kind == "ReplicaSet" ? "replicasets"
                                                : "";
  if (resource.empty()) {
    return Status::InvalidArgument(fmt::format(
        "etna serves the scale subresource of Deployments and ReplicaSets, not of {} (apiVersion "
        "{})",
        kind, hpa.target_api_version()));
  }
  return client::Path(resource, hpa.ns(), hpa.target_name()) + "/scale";
}

// metric.{name, selector} as the spec gives it.
Json MetricIdentifier(const types::HpaMetric& m) {
  Json id = {{"name", m.name}};
  if (!m.selector.is_null()) id["selector"] = m.selector;
  return id;
}

}  // namespace

struct HorizontalPodAutoscalerController::Proposal {
  int32_t replicas = 0;
  Json status;  // the currentMetrics entry
};

HorizontalPodAutoscalerController::HorizontalPodAutoscalerController(
    ControllerOptions options, std::chrono::milliseconds sync_period,
    std::unique_ptr<HpaMetrics> metrics)
    : Controller("horizontal-pod-autoscaler", options),
      sync_period_(sync_period),
      metrics_(metrics ? std::move(metrics) : std::make_unique<RestHpaMetrics>(&rest())) {
  // A new HPA or a changed spec syncs now; the controller's own status writes wait for the
  // next period, as upstream's rate-limited queue makes them.
  hpas_ = Watch(client::Path("horizontalpodautoscalers"),
                [this](const std::string& type, const Json& hpa) {
                  if (type == "DELETED" || type == "ADDED" ||
                      types::Integer(hpa, {"metadata", "generation"}) !=
                          types::Integer(hpa, {"status", "observedGeneration"}, -1)) {
                    queue().Add(KeyOf(hpa));
                  }
                });
  // Read at each sync; their changes do not make an HPA sync sooner.
  pods_ = Watch(client::Path("pods"), [](const std::string&, const Json&) {});
}

HorizontalPodAutoscalerController::~HorizontalPodAutoscalerController() { Stop(); }

Result<std::vector<Json>> HorizontalPodAutoscalerController::SelectedPods(
    const std::string& ns, const std::string& selector) {
  auto parsed = api::codec::LabelSelector::Parse(selector);
  if (!parsed.ok()) {
    return Status::InvalidArgument(
        fmt::format("the target's selector \"{}\": {}", selector, parsed.status().message()));
  }
  std::vector<Json> pods;
  pods_->ForEachInNamespace(ns, [&](const Json& pod) {
    const Json* labels = types::Find(pod, {"metadata", "labels"});
    if (parsed->Matches(labels ? *labels : Json())) pods.push_back(pod);
  });
  return pods;
}

Result<HorizontalPodAutoscalerController::Proposal>
HorizontalPodAutoscalerController::ComputeMetric(const types::HpaMetric& m, const std::string& ns,
                                                 const std::string& selector, int32_t current,
                                                 int32_t status_replicas, std::string* reason) {
  ReplicaCalculator calc;
  calc.now = clock().NowMs();
  Proposal out;
  if (m.type == "Resource" || m.type == "ContainerResource" || m.type == "Pods") {
    const bool pods_metric = m.type == "Pods";
    *reason = pods_metric            ? "FailedGetPodsMetric"
              : m.type == "Resource" ? "FailedGetResourceMetric"
                                     : "FailedGetContainerResourceMetric";
    ETNA_ASSIGN_OR_RETURN(std::vector<Json> pods, SelectedPods(ns, selector));
    auto values = pods_metric ? metrics_->PodMetric(ns, selector, m.name)
                              : metrics_->PodResource(ns, selector, m.name, m.container);
    if (!values.ok()) {
      return Status(values.status().code(),
                    fmt::format("unable to get metric {}: {}", m.name, values.status().message()));
    }
    Json current_value;
    if (!pods_metric && m.target.type == "Utilization") {
      ETNA_ASSIGN_OR_RETURN(ReplicaProposal p,
                            calc.ResourceUtilization(current, m.target.average_utilization, m.name,
                                                     m.container, pods, *values));
      out.replicas = p.replicas;
      current_value = {{"averageUtilization", p.usage},
                       {"averageValue", types::MilliQuantity(p.raw_utilization)}};
    } else {
      if (m.target.type != "AverageValue") {
        return Status::InvalidArgument(
            fmt::format("{} metric {}: target type must be {}", m.type, m.name,
                        pods_metric ? "AverageValue" : "Utilization or AverageValue"));
      }
      ETNA_ASSIGN_OR_RETURN(ReplicaProposal p,
                            calc.AverageValue(current, m.target.average_value_milli,
                                              pods_metric ? "" : m.name, pods, *values));
      out.replicas = p.replicas;
      current_value = {{"averageValue", types::MilliQuantity(p.usage)}};
    }
    if (pods_metric) {
      out.status = {{"type", "Pods"},
                    {"pods", {{"metric", MetricIdentifier(m)}, {"current", current_value}}}};
    } else if (m.type == "Resource") {
      out.status = {{"type", "Resource"},
                    {"resource", {{"name", m.name}, {"current", current_value}}}};
    } else {
      out.status = {{"type", "ContainerResource"},
                    {"containerResource",
                     {{"name", m.name}, {"container", m.container}, {"current", current_value}}}};
    }
    return out;
  }
  int64_t usage = 0;
  if (m.type == "Object") {
    *reason = "FailedGetObjectMetric";
    auto v = metrics_->ObjectMetric(ns, m.object_api_version, m.object_kind, m.object_name, m.name);
    if (!v.ok()) {
      return Status(v.status().code(),
                    fmt::format("unable to get metric {}: {} on {} {}: {}", m.name, m.object_kind,
                                ns, m.object_name, v.status().message()));
    }
    usage = *v;
  } else {
    *reason = "FailedGetExternalMetric";
    std::string metric_selector;
    if (!m.selector.is_null()) {
      metric_selector = types::FormatLabelSelector(&m.selector);
      if (metric_selector == "<none>") metric_selector.clear();
    }
    auto v = metrics_->ExternalMetric(ns, m.name, metric_selector);
    if (!v.ok()) {
      return Status(
          v.status().code(),
          fmt::format("unable to get external metric {}/{}/{}: {}", ns, m.name,
                      m.selector.is_null() ? "nil" : m.selector.dump(), v.status().message()));
    }
    for (int64_t x : *v) usage += x;
  }
  Json current_value;
  if (m.target.type == "Value") {
    int32_t ready = 0;
    if (current != 0) {
      ETNA_ASSIGN_OR_RETURN(std::vector<Json> pods, SelectedPods(ns, selector));
      ready = ReadyPodCount(pods);
    }
    ReplicaProposal p = calc.Value(current, usage, m.target.value_milli, ready);
    out.replicas = p.replicas;
    current_value = {{"value", types::MilliQuantity(p.usage)}};
  } else if (m.target.type == "AverageValue") {
    ReplicaProposal p = calc.PerPod(status_replicas, usage, m.target.average_value_milli);
    out.replicas = p.replicas;
    current_value = {{"averageValue", types::MilliQuantity(p.usage)}};
  } else {
    return Status::InvalidArgument(
        fmt::format("{} metric {}: target type must be Value or AverageValue", m.type, m.name));
  }
  if (m.type == "Object") {
    out.status = {{"type", "Object"},
                  {"object",
                   {{"metric", MetricIdentifier(m)},
                    {"describedObject",
                     {{"apiVersion", m.object_api_version},
                      {"kind", m.object_kind},
                      {"name", m.object_name}}},
                    {"current", current_value}}}};
  } else {
    out.status = {{"type", "External"},
                  {"external", {{"metric", MetricIdentifier(m)}, {"current", current_value}}}};
  }
  return out;
}

Status HorizontalPodAutoscalerController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  auto found = hpas_->Get(ns, name);
  if (!found || types::ObjectView(*found).IsDeleting()) {
    std::lock_guard<std::mutex> lock(mu_);
    histories_.erase(key);
    return Status::Ok();
  }
  const Json& object = *found;
  types::HorizontalPodAutoscaler hpa(object);
  const TimeMs now = clock().NowMs();
  queue().AddAt(key, now + sync_period_.count());  // the next sync, whatever happens now
  const Json& old_status = types::Object(object, {"status"});
  client::ObjectRef ref{"HorizontalPodAutoscaler", "autoscaling/v2", ns, name, hpa.uid()};
  Json conditions = Json::array();
  Json status = {{"currentReplicas", types::Integer(old_status, {"currentReplicas"})},
                 {"desiredReplicas", types::Integer(old_status, {"desiredReplicas"})},
                 {"currentMetrics", types::Array(old_status, {"currentMetrics"})}};
  if (const Json* last = types::Find(old_status, {"lastScaleTime"}))
    status["lastScaleTime"] = *last;
  if (auto g = types::IntegerIfSet(object, {"metadata", "generation"})) {
    status["observedGeneration"] = *g;
  }
  Json able, active, limited;
  // The three conditions in upstream's order; one this sync did not decide stays as it was.
  auto finish_conditions = [&] {
    for (auto [type, c] : {std::pair<const char*, const Json*>{"AbleToScale", &able},
                           {"ScalingActive", &active},
                           {"ScalingLimited", &limited}}) {
      if (!c->is_null()) {
        conditions.push_back(*c);
      } else if (const Json* old = types::FindCondition(old_status, {"conditions"}, type)) {
        conditions.push_back(*old);
      }
    }
  };
  auto write_status = [&]() -> Status {
    finish_conditions();
    status["conditions"] = conditions;
    if (status == old_status) return Status::Ok();
    auto r = rest().MergePatch(client::Path("horizontalpodautoscalers", ns, name),
                               {{"status", status}}, "status");
    return r.ok() || r.status().code() == StatusCode::kNotFound ? Status::Ok() : r.status();
  };

  // The target's scale.
  Result<Json> scale = Status::Unavailable("");
  auto path = ScalePath(hpa);
  if (path.ok()) scale = rest().Get(*path);
  if (!path.ok() || !scale.ok()) {
    std::string why = path.ok() ? scale.status().message() : path.status().message();
    std::string message =
        fmt::format("the HPA controller was unable to get the target's current scale: {}", why);
    able = StatusCondition(old_status, "AbleToScale", false, "FailedGetScale", message, now);
    events().Record(ref, "Warning", "FailedGetScale", message);
    return write_status();
  }
  const int32_t current = static_cast<int32_t>(types::Integer(*scale, {"spec", "replicas"}));
  const int32_t status_replicas =
      static_cast<int32_t>(types::Integer(*scale, {"status", "replicas"}));
  const std::string selector = types::String(*scale, {"status", "selector"});
  const int32_t min_replicas = hpa.min_replicas();
  const int32_t max_replicas = hpa.max_replicas();
  status["currentReplicas"] = current;
  able = StatusCondition(old_status, "AbleToScale", true, "SucceededGetScale",
                         "the HPA controller was able to get the target's current scale", now);
  int32_t desired = current;
  std::string reason;
  bool rescale = true;
  Json current_metrics = Json::array();
  if (current == 0 && min_replicas != 0) {
    desired = 0;
    rescale = false;
    active =
        StatusCondition(old_status, "ScalingActive", false, "ScalingDisabled",
                        "scaling is disabled since the replica count of the target is zero", now);
  } else if (current > max_replicas) {
    reason = "Current number of replicas above Spec.MaxReplicas";
    desired = max_replicas;
  } else if (current < min_replicas) {
    reason = "Current number of replicas below Spec.MinReplicas";
    desired = min_replicas;
  } else {
    // Each metric's proposal; the largest wins.
    auto specs = hpa.metrics();
    int32_t proposed = -1, invalid = 0, total = 0;
    std::string winner, first_error, first_reason;
    if (!specs.ok()) {
      invalid = total = 1;
      first_error = specs.status().message();
      first_reason = "InvalidMetricSourceType";
    } else {
      total = static_cast<int32_t>(specs->size());
      for (const types::HpaMetric& m : *specs) {
        std::string why;
        auto p = ComputeMetric(m, ns, selector, current, status_replicas, &why);
        if (!p.ok()) {
          if (invalid++ == 0) {
            first_error = p.status().message();
            first_reason = why;
          }
          continue;
        }
        current_metrics.push_back(p->status);
        if (p->replicas > proposed) {
          proposed = p->replicas;
          // How upstream names the metric in its condition and event messages.
          if (m.type == "Resource" || m.type == "ContainerResource") {
            winner = m.target.type == "Utilization"
                         ? fmt::format("{} resource utilization (percentage of request)", m.name)
                         : fmt::format("{} resource", m.name);
          } else if (m.type == "External") {
            winner = fmt::format("external metric {}({})", m.name,
                                 m.selector.is_null() ? "nil" : m.selector.dump());
          } else if (m.type == "Pods") {
            winner = fmt::format("pods metric {}", m.name);
          } else if (m.type == "Object") {
            winner = fmt::format("{} metric {}", m.object_kind, m.name);
          }
        }
      }
    }
    status["currentMetrics"] = current_metrics;
    if (invalid > 0) {
      events().Record(ref, "Warning", first_reason, first_error);
    }
    if (invalid >= total || (invalid > 0 && proposed < current)) {
      active =
          StatusCondition(old_status, "ScalingActive", false, first_reason,
                          "the HPA was unable to compute the replica count: " + first_error, now);
      events().Record(ref, "Warning", "FailedComputeMetricsReplicas",
                      fmt::format("invalid metrics ({} invalid out of {}), first error is: {}",
                                  invalid, total, first_error));
      status["desiredReplicas"] = current;
      return write_status();
    }
    active = StatusCondition(
        old_status, "ScalingActive", true, "ValidMetricFound",
        "the HPA was able to successfully calculate a replica count from " + winner, now);
    if (proposed > current) reason = winner + " above target";
    if (proposed < current) reason = "All metrics below target";
    HpaNormalized normalized;
    {
      std::lock_guard<std::mutex> lock(mu_);
      normalized = histories_[key].Normalize(hpa.behavior(), min_replicas, max_replicas, current,
                                             proposed, now);
    }
    able = StatusCondition(old_status, "AbleToScale", true, normalized.able_to_scale.reason,
                           normalized.able_to_scale.message, now);
    limited =
        StatusCondition(old_status, "ScalingLimited", normalized.limited,
                        normalized.scaling_limited.reason, normalized.scaling_limited.message, now);
    desired = normalized.replicas;
    rescale = desired != current;
  }
  if (rescale && desired != current) {
    auto written = rest().MergePatch(*path, {{"spec", {{"replicas", desired}}}});
    if (!written.ok()) {
      std::string message = fmt::format("New size: {}; reason: {}; error: {}", desired, reason,
                                        written.status().message());
      able = StatusCondition(
          old_status, "AbleToScale", false, "FailedUpdateScale",
          "the HPA controller was unable to update the target scale: " + written.status().message(),
          now);
      events().Record(ref, "Warning", "FailedRescale", message);
      return write_status();
    }
    able = StatusCondition(
        old_status, "AbleToScale", true, "SucceededRescale",
        fmt::format("the HPA controller was able to update the target scale to {}", desired), now);
    events().Record(ref, "Normal", "SuccessfulRescale",
                    fmt::format("New size: {}; reason: {}", desired, reason));
    {
      std::lock_guard<std::mutex> lock(mu_);
      histories_[key].RecordScale(current, desired, now);
    }
    status["lastScaleTime"] = FormatRfc3339(now);
  }
  status["desiredReplicas"] = desired;
  return write_status();
}

}  // namespace etna::controllers
