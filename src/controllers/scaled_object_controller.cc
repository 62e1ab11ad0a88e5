#include "controllers/scaled_object_controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "api/types/object.h"
#include "common/resource.h"
#include "common/time.h"
#include "controllers/status_conditions.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

// One prometheus trigger as the spec gives it, with KEDA's defaults.
struct Trigger {
  std::string metric;  // "s<i>-prometheus"
  PrometheusQuery query;
  std::string threshold;            // a quantity, as written
  double activation_threshold = 0;  // activationThreshold
  std::string metric_type = "AverageValue";
};

std::vector<Trigger> Triggers(const Json& so) {
  std::vector<Trigger> out;
  const Json& list = types::Array(so, {"spec", "triggers"});
  for (size_t i = 0; i < list.size(); ++i) {
    const Json& t = list[i];
    const Json& m = types::Object(t, {"metadata"});
    Trigger trigger;
    trigger.metric = fmt::format("s{}-prometheus", i);
    trigger.query.server_address = types::String(m, {"serverAddress"});
    trigger.query.query = types::String(m, {"query"});
    trigger.query.ns = types::String(m, {"namespace"});
    trigger.query.ignore_null_values = types::String(m, {"ignoreNullValues"}, "true") != "false";
    trigger.threshold = types::String(m, {"threshold"});
    trigger.activation_threshold =
        std::atof(types::String(m, {"activationThreshold"}, "0").c_str());
    trigger.metric_type = types::String(t, {"metricType"}, "AverageValue");
    out.push_back(std::move(trigger));
  }
  return out;
}

std::string Number(double v) {
  std::string s = fmt::format("{:.3f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s.empty() ? "0" : s;
}

std::string TargetResource(const std::string& kind) {
  return kind == "ReplicaSet" ? "replicasets" : "deployments";
}

}  // namespace

ScaledObjectController::ScaledObjectController(ControllerOptions options,
                                               std::unique_ptr<TriggerSource> source)
    : Controller("keda-operator", options),
      source_(source ? std::move(source) : std::make_unique<HttpPrometheus>()) {
  // A new ScaledObject or a changed spec polls now; its own status writes wait for the next
  // polling interval.
  scaled_objects_ =
      Watch(client::Path("scaledobjects"), [this](const std::string& type, const Json& so) {
        if (type == "ADDED" || type == "DELETED" ||
            types::Integer(so, {"metadata", "generation"}) !=
                types::Integer(so, {"status", "observedGeneration"}, -1)) {
          queue().Add(KeyOf(so));
        }
      });
  // Its HPA deleted by someone: made again at once.
  hpas_ = Watch(client::Path("horizontalpodautoscalers"),
                [this](const std::string& type, const Json& hpa) {
                  std::string owner = types::ObjectView(hpa).ControllerName("ScaledObject");
                  if (type == "DELETED" && !owner.empty()) {
                    queue().Add(types::ObjectView(hpa).ns() + "/" + owner);
                  }
                });
}

ScaledObjectController::~ScaledObjectController() { Stop(); }

Status ScaledObjectController::EnsureHpa(const Json& so) {
  types::ObjectView view(so);
  const std::string name = "keda-hpa-" + view.name();
  const Json& spec = types::Object(so, {"spec"});
  const int64_t min = types::Integer(spec, {"minReplicaCount"}, 0);
  const int64_t max = types::Integer(spec, {"maxReplicaCount"}, 100);
  Json metrics = Json::array();
  for (const Trigger& t : Triggers(so)) {
    Json target = {{"type", t.metric_type}};
    target[t.metric_type == "Value" ? "value" : "averageValue"] = t.threshold;
    metrics.push_back(
        {{"type", "External"},
         {"external",
          {{"metric",
            {{"name", t.metric},
             {"selector", {{"matchLabels", {{kScaledObjectNameLabel, view.name()}}}}}}},
           {"target", target}}}});
  }
  Json hpa_spec = {
      {"scaleTargetRef",
       {{"apiVersion", types::String(spec, {"scaleTargetRef", "apiVersion"}, "apps/v1")},
        {"kind", types::String(spec, {"scaleTargetRef", "kind"}, "Deployment")},
        {"name", types::String(spec, {"scaleTargetRef", "name"})}}},
      {"minReplicas", std::max<int64_t>(min, 1)},
      {"maxReplicas", std::max<int64_t>(max, 1)},
      {"metrics", metrics}};
  if (const Json* behavior =
          types::Find(spec, {"advanced", "horizontalPodAutoscalerConfig", "behavior"})) {
    hpa_spec["behavior"] = *behavior;
  }
  auto existing = hpas_->Get(view.ns(), name);
  if (existing && types::Object(*existing, {"spec"}) == hpa_spec) return Status::Ok();
  Json hpa = {{"apiVersion", "autoscaling/v2"},
              {"kind", "HorizontalPodAutoscaler"},
              {"metadata",
               {{"name", name},
                {"namespace", view.ns()},
                {"labels",
                 {{"app.kubernetes.io/managed-by", "keda-operator"},
                  {"app.kubernetes.io/name", name},
                  {"app.kubernetes.io/part-of", view.name()},
                  {kScaledObjectNameLabel, view.name()}}},
                {"ownerReferences",
                 {{{"apiVersion", "keda.sh/v1alpha1"},
                   {"kind", "ScaledObject"},
                   {"name", view.name()},
                   {"uid", view.uid()},
                   {"controller", true},
                   {"blockOwnerDeletion", true}}}}}},
              {"spec", hpa_spec}};
  if (!existing) {
    auto made = rest().Create(client::Path("horizontalpodautoscalers", view.ns()), hpa);
    return made.ok() || made.status().code() == StatusCode::kAlreadyExists ? Status::Ok()
                                                                           : made.status();
  }
  auto patched = rest().MergePatch(client::Path("horizontalpodautoscalers", view.ns(), name),
                                   {{"spec", hpa_spec}});
  return patched.ok() ? Status::Ok() : patched.status();
}

Status ScaledObjectController::Reconcile(const std::string& key) {
  auto [ns, name] = SplitKey(key);
  auto found = scaled_objects_->Get(ns, name);
  if (!found || types::ObjectView(*found).IsDeleting()) return Status::Ok();
  const Json& so = *found;
  types::ObjectView view(so);
  const Json& spec = types::Object(so, {"spec"});
  const Json& old_status = types::Object(so, {"status"});
  const TimeMs now = clock().NowMs();
  const int64_t polling_s = std::max<int64_t>(types::Integer(spec, {"pollingInterval"}, 30), 1);
  queue().AddAt(key, now + polling_s * 1000);
  client::ObjectRef ref{"ScaledObject", "keda.sh/v1alpha1", ns, name, view.uid()};

  // The triggers.
  Json values = Json::object(), health = Json::object(), names = Json::array();
  bool active = false;
  std::string failure;
  for (const Trigger& t : Triggers(so)) {
    names.push_back(t.metric);
    auto value = source_->Query(t.query);
    const Json* old_health = types::Find(old_status, {"health", t.metric});
    int64_t failures = old_health ? types::Integer(*old_health, {"numberOfFailures"}) : 0;
    if (!value.ok()) {
      failure = value.status().message();
      health[t.metric] = {{"numberOfFailures", failures + 1}, {"status", "Failure"}};
      values[t.metric] = {{"error", failure}, {"timestamp", FormatRfc3339(now)}};
      events().Record(ref, "Warning", "KEDAScalerFailed", failure);
      continue;
    }
    health[t.metric] = {{"numberOfFailures", 0}, {"status", "Happy"}};
    values[t.metric] = {{"value", Number(*value)}, {"timestamp", FormatRfc3339(now)}};
    active = active || *value > t.activation_threshold;
  }

  // 0 <-> 1 (and the floor), as KEDA's scale executor; the HPA does 1 <-> N.
  const std::string kind = types::String(spec, {"scaleTargetRef", "kind"}, "Deployment");
  const std::string target = types::String(spec, {"scaleTargetRef", "name"});
  const std::string scale_path = client::Path(TargetResource(kind), ns, target) + "/scale";
  const int64_t min = types::Integer(spec, {"minReplicaCount"}, 0);
  const int64_t cooldown_s = types::Integer(spec, {"cooldownPeriod"}, 300);
  Json status = {
      {"scaleTargetKind", fmt::format("apps/v1.{}", kind)},
      {"scaleTargetGVKR",
       {{"group", "apps"}, {"version", "v1"}, {"kind", kind}, {"resource", TargetResource(kind)}}},
      {"hpaName", "keda-hpa-" + name},
      {"externalMetricNames", names},
      {"health", health},
      {"metricValues", values}};
  if (auto g = types::IntegerIfSet(so, {"metadata", "generation"}))
    status["observedGeneration"] = *g;
  if (const Json* last = types::Find(old_status, {"lastActiveTime"}))
    status["lastActiveTime"] = *last;
  if (const Json* orig = types::Find(old_status, {"originalReplicaCount"})) {
    status["originalReplicaCount"] = *orig;
  }
  std::string target_error;
  auto scale = rest().Get(scale_path);
  if (!scale.ok()) {
    target_error = fmt::format("the scale target {} {}/{} cannot be read: {}", kind, ns, target,
                               scale.status().message());
  } else {
    const int64_t current = types::Integer(*scale, {"spec", "replicas"});
    if (!status.contains("originalReplicaCount")) status["originalReplicaCount"] = current;
    if (active) status["lastActiveTime"] = FormatRfc3339(now);
    int64_t want = current;
    if (failure.empty() || active) {
      TimeMs reference = 0;
      if (auto last = ParseRfc3339(types::String(status, {"lastActiveTime"}))) {
        reference = *last + cooldown_s * 1000;
      } else if (auto made = ParseRfc3339(view.creation_timestamp())) {
        reference = *made + types::Integer(spec, {"initialCooldownPeriod"}, 0) * 1000;
      }
      // An inactive target may rest at 0 when minReplicaCount is 0 or idleReplicaCount
      // (always 0: admission) is set; otherwise it is kept at minReplicaCount.
      const bool may_rest = min == 0 || types::Find(spec, {"idleReplicaCount"}) != nullptr;
      if (active && current == 0) {
        want = std::max<int64_t>(min, 1);
      } else if (!active && may_rest) {
        if (current > 0 && now >= reference) want = 0;
      } else if (current < min) {
        want = min;
      }
    }
    if (want != current) {
      auto written = rest().MergePatch(scale_path, {{"spec", {{"replicas", want}}}});
      if (!written.ok()) {
        target_error = written.status().message();
      } else {
        events().Record(ref, "Normal",
                        want > current ? "KEDAScaleTargetActivated" : "KEDAScaleTargetDeactivated",
                        fmt::format("{} apps/v1.{} {}/{} from {} to {}",
                                    want > current ? "Scaled" : "Deactivated", kind, ns, target,
                                    current, want));
      }
    }
  }
  Json conditions = Json::array();
  if (!failure.empty() || !target_error.empty()) {
    conditions.push_back(StatusCondition(
        old_status, "Ready", false, failure.empty() ? "ScaledObjectCheckFailed" : "TriggerError",
        failure.empty() ? target_error : failure, now));
  } else {
    conditions.push_back(
        StatusCondition(old_status, "Ready", true, "ScaledObjectReady",
                        "ScaledObject is defined correctly and is ready for scaling", now));
  }
  conditions.push_back(
      active ? StatusCondition(old_status, "Active", true, "ScalerActive",
                               "Scaling is performed because triggers are active", now)
             : StatusCondition(old_status, "Active", false, "ScalerNotActive",
                               "Scaling is not performed because triggers are not active", now));
  conditions.push_back(StatusCondition(old_status, "Fallback", false, "NoFallbackFound",
                                       "No fallbacks are defined", now));
  status["conditions"] = conditions;
  auto r =
      rest().MergePatch(client::Path("scaledobjects", ns, name), {{"status", status}}, "status");
  if (!r.ok()) return r.status().code() == StatusCode::kNotFound ? Status::Ok() : r.status();
  // After the values it reads are written: its first sync finds them.
  return EnsureHpa(so);
}

}  // namespace etna::controllers
