#include "controllers/batch_job_pods.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "api/types/batch_job.h"
#include "api/types/pod.h"
#include "common/time.h"
#include "controllers/job_pods.h"

namespace etna::controllers {

namespace types = etna::api::types;

namespace {

// Adds JOB_COMPLETION_INDEX to each container of `containers` that does not set it.
void AddIndexEnv(Json& containers, int64_t index) {
  if (!containers.is_array()) return;
  for (Json& c : containers) {
    Json& env = c["env"];
    if (!env.is_array()) env = Json::array();
    bool has = std::any_of(env.begin(), env.end(), [](const Json& e) {
      return types::String(e, {"name"}) == types::kJobCompletionIndexEnv;
    });
    if (!has)
      env.push_back({{"name", types::kJobCompletionIndexEnv}, {"value", std::to_string(index)}});
  }
}

}  // namespace

Json BuildBatchJobPod(const Json& job, std::optional<int64_t> index) {
  types::BatchJob view(job);
  const Json& tmpl = view.pod_template();
  std::string prefix = view.name() + "-";
  if (index) prefix += std::to_string(*index) + "-";
  Json meta = {{"generateName", prefix},
               {"namespace", view.ns()},
               {"ownerReferences", Json::array({ControllerRef(job, "batch/v1", "Job")})}};
  for (const char* f : {"labels", "annotations"}) {
    if (const Json* v = types::Find(tmpl, {"metadata", f})) meta[f] = *v;
  }
  Json finalizers = types::Array(tmpl, {"metadata", "finalizers"});
  finalizers.push_back(types::kJobTrackingFinalizer);
  meta["finalizers"] = finalizers;
  Json spec = types::Object(tmpl, {"spec"});
  if (index) {
    std::string text = std::to_string(*index);
    meta["annotations"][types::kJobCompletionIndexAnnotation] = text;
    meta["labels"][types::kJobCompletionIndexAnnotation] = text;
    if (!spec.contains("hostname")) spec["hostname"] = view.name() + "-" + text;
    AddIndexEnv(spec["containers"], *index);
    if (spec.contains("initContainers")) AddIndexEnv(spec["initContainers"], *index);
  }
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", std::move(meta)}, {"spec", spec}};
}

std::optional<int64_t> CompletionIndexOf(const Json& pod) {
  std::string text = types::ObjectView(pod).Annotation(types::kJobCompletionIndexAnnotation);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

bool HasTrackingFinalizer(const Json& pod) {
  return types::ObjectView(pod).HasFinalizer(types::kJobTrackingFinalizer);
}

namespace {

// The first terminated container of `pod` (init containers, then containers) that matches the
// onExitCodes requirement; its name and code.
std::optional<std::pair<std::string, int64_t>> MatchExitCodes(const Json& pod, const Json& req) {
  std::string only = types::String(req, {"containerName"});
  bool in = types::String(req, {"operator"}) == "In";
  const Json& values = types::Array(req, {"values"});
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const Json& cs : types::Array(pod, {"status", list})) {
      const Json* code = types::Find(cs, {"state", "terminated", "exitCode"});
      if (code == nullptr || !code->is_number_integer()) continue;
      int64_t exit = code->get<int64_t>();
      std::string name = types::String(cs, {"name"});
      if (exit == 0 || (!only.empty() && name != only)) continue;
      bool listed = std::any_of(values.begin(), values.end(), [&](const Json& v) {
        return v.is_number_integer() && v.get<int64_t>() == exit;
      });
      if (listed == in) return std::make_pair(name, exit);
    }
  }
  return std::nullopt;
}

}  // namespace

FailureVerdict MatchPodFailurePolicy(const Json& rules, const Json& pod) {
  types::Pod view(pod);
  for (size_t i = 0; i < rules.size(); ++i) {
    const Json& rule = rules[i];
    std::string action = types::String(rule, {"action"});
    if (const Json* req = types::Find(rule, {"onExitCodes"})) {
      if (auto hit = MatchExitCodes(pod, *req)) {
        return {action, fmt::format("Container {} for pod {} failed with exit code {} matching {} "
                                    "rule at index {}",
                                    hit->first, view.Key(), hit->second, action, i)};
      }
      continue;
    }
    for (const Json& want : types::Array(rule, {"onPodConditions"})) {
      std::string type = types::String(want, {"type"});
      std::string status = types::String(want, {"status"}, "True");
      for (const Json& c : types::Array(pod, {"status", "conditions"})) {
        if (types::String(c, {"type"}) == type && types::String(c, {"status"}) == status) {
          return {action, fmt::format("Pod {} has condition {} matching {} rule at index {}",
                                      view.Key(), type, action, i)};
        }
      }
    }
  }
  return {"Count", ""};
}

TimeMs FailureBackoffMs(int64_t failures) {
  if (failures <= 0) return 0;
  constexpr TimeMs kBase = 10'000, kMax = 360'000;
  TimeMs delay = kBase;
  for (int64_t i = 1; i < failures && delay < kMax; ++i) delay *= 2;
  return std::min(delay, kMax);
}

TimeMs PodFinishedAt(const Json& pod) {
  TimeMs latest = 0;
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    for (const Json& cs : types::Array(pod, {"status", list})) {
      auto at = ParseRfc3339(types::String(cs, {"state", "terminated", "finishedAt"}));
      if (at) latest = std::max(latest, *at);
    }
  }
  if (latest == 0) {
    latest = ParseRfc3339(types::String(pod, {"metadata", "deletionTimestamp"})).value_or(0);
  }
  return latest;
}

}  // namespace etna::controllers
