// Pod → PodRecord: request, status, held devices, priority, role and placement constraints.
#include <fmt/format.h>

#include <algorithm>

#include "api/types/pod.h"
#include "api/types/well_known.h"
#include "common/time.h"
#include "sched/devices/request.h"
#include "scheduler/convert.h"

namespace etna::scheduler {
namespace {

sched::SelectorRequirement::Op OpOf(const std::string& op) {
  using Op = sched::SelectorRequirement::Op;
  if (op == "NotIn") return Op::kNotIn;
  if (op == "Exists") return Op::kExists;
  if (op == "DoesNotExist") return Op::kDoesNotExist;
  if (op == "Gt") return Op::kGt;
  if (op == "Lt") return Op::kLt;
  return Op::kIn;
}

// The string entries of the array at `path` (values, namespaces); others are skipped.
std::vector<std::string> Strings(const json& object, api::types::Path path) {
  std::vector<std::string> out;
  for (const auto& v : Array(object, path)) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::vector<sched::SelectorRequirement> Requirements(const json& list) {
  std::vector<sched::SelectorRequirement> out;
  for (const auto& r : list) {
    sched::SelectorRequirement req;
    req.key = String(r, {"key"});
    req.op = OpOf(String(r, {"operator"}));
    req.values = Strings(r, {"values"});
    out.push_back(std::move(req));
  }
  return out;
}

sched::NodeSelectorTerm TermOf(const json& t) {
  return {Requirements(Array(t, {"matchExpressions"})), Requirements(Array(t, {"matchFields"}))};
}

int32_t WeightOf(const json& weighted) {
  return static_cast<int32_t>(Integer(weighted, {"weight"}));
}

sched::PodAffinityTerm AffinityTermOf(const json& t) {
  sched::PodAffinityTerm out;
  out.selector.match_labels = StringMap(t, {"labelSelector", "matchLabels"});
  out.selector.match_expressions = Requirements(Array(t, {"labelSelector", "matchExpressions"}));
  out.namespaces = Strings(t, {"namespaces"});
  out.topology_key = String(t, {"topologyKey"});
  return out;
}

void PodAffinity(const json& a, std::vector<sched::PodAffinityTerm>* required,
                 std::vector<sched::WeightedPodAffinityTerm>* preferred) {
  for (const auto& t : Array(a, {"requiredDuringSchedulingIgnoredDuringExecution"})) {
    required->push_back(AffinityTermOf(t));
  }
  for (const auto& t : Array(a, {"preferredDuringSchedulingIgnoredDuringExecution"})) {
    preferred->push_back({WeightOf(t), AffinityTermOf(Object(t, {"podAffinityTerm"}))});
  }
}

sched::Taint::Effect EffectOf(const std::string& e) {
  if (e == "PreferNoSchedule") return sched::Taint::Effect::kPreferNoSchedule;
  if (e == "NoExecute") return sched::Taint::Effect::kNoExecute;
  return sched::Taint::Effect::kNoSchedule;
}

// Sum of the containers' requests (limits when a request is absent), at least each init
// container's.
Result<ResourceVector> PodRequest(const api::types::Pod& pod) {
  auto container_request = [](const json& c, const std::string& field) -> Result<ResourceVector> {
    json merged = Object(c, {"resources", "limits"});
    for (const auto& [k, v] : Object(c, {"resources", "requests"}).items()) merged[k] = v;
    return ParseResourceList(merged, field);
  };
  ResourceVector sum;
  const json& containers = pod.containers();
  for (size_t i = 0; i < containers.size(); ++i) {
    ETNA_ASSIGN_OR_RETURN(
        auto r, container_request(containers[i], fmt::format("spec.containers[{}].resources", i)));
    sum += r;
  }
  const json& init_containers = pod.init_containers();
  for (size_t i = 0; i < init_containers.size(); ++i) {
    ETNA_ASSIGN_OR_RETURN(
        auto r,
        container_request(init_containers[i], fmt::format("spec.initContainers[{}].resources", i)));
    sum = sum.Max(r);
  }
  return sum;
}

}  // namespace

std::shared_ptr<const sched::PodSpec> ConvertPodSpec(const json& pod) {
  const json& spec = Object(pod, {"spec"});
  api::types::Pod view(pod);
  auto out = std::make_shared<sched::PodSpec>();
  out->node_selector = StringMap(spec, {"nodeSelector"});
  const json& affinity = Object(spec, {"affinity"});
  const json& na = Object(affinity, {"nodeAffinity"});
  for (const auto& t :
       Array(na, {"requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"})) {
    out->node_affinity_required.push_back(TermOf(t));
  }
  for (const auto& p : Array(na, {"preferredDuringSchedulingIgnoredDuringExecution"})) {
    out->node_affinity_preferred.push_back({WeightOf(p), TermOf(Object(p, {"preference"}))});
  }
  PodAffinity(Object(affinity, {"podAffinity"}), &out->pod_affinity_required,
              &out->pod_affinity_preferred);
  PodAffinity(Object(affinity, {"podAntiAffinity"}), &out->pod_anti_affinity_required,
              &out->pod_anti_affinity_preferred);
  for (const auto& t : Array(spec, {"tolerations"})) {
    sched::Toleration tol;
    tol.key = String(t, {"key"});
    tol.op = String(t, {"operator"}) == "Exists" ? sched::Toleration::Op::kExists
                                                 : sched::Toleration::Op::kEqual;
    tol.value = String(t, {"value"});
    std::string effect = String(t, {"effect"});
    tol.any_effect = effect.empty();
    tol.effect = EffectOf(effect);
    out->tolerations.push_back(std::move(tol));
  }
  for (const auto& c : Array(spec, {"topologySpreadConstraints"})) {
    sched::TopologySpreadConstraint tsc;
    tsc.max_skew = static_cast<int32_t>(Integer(c, {"maxSkew"}, 1));
    tsc.topology_key = String(c, {"topologyKey"});
    tsc.hard = String(c, {"whenUnsatisfiable"}, "DoNotSchedule") == "DoNotSchedule";
    tsc.selector.match_labels = StringMap(c, {"labelSelector", "matchLabels"});
    tsc.selector.match_expressions = Requirements(Array(c, {"labelSelector", "matchExpressions"}));
    // matchLabelKeys: the pod's own values of those labels join the selector.
    for (const auto& key : Strings(c, {"matchLabelKeys"})) {
      if (std::string value = view.Label(key); !value.empty()) {
        tsc.selector.match_labels[key] = value;
      }
    }
    tsc.min_domains = static_cast<int32_t>(Integer(c, {"minDomains"}, 1));
    tsc.honor_node_affinity = String(c, {"nodeAffinityPolicy"}, "Honor") == "Honor";
    tsc.honor_taints = String(c, {"nodeTaintsPolicy"}, "Ignore") == "Honor";
    out->topology_spread.push_back(std::move(tsc));
  }
  std::string models = view.Annotation("nvidia.com/use-gputype");
  if (!models.empty()) out->gpu_models = sched::devices::ParseGpuModels(models);
  out->require_full_nvlink = view.Annotation("volcano.sh/preferred-topology") == "full";
  if (out->Unconstrained()) return nullptr;
  return out;
}

Result<PodRecord> ConvertPod(const json& pod, const std::vector<std::string>& scheduler_names) {
  PodRecord r;
  api::types::Pod view(pod);
  const json& spec = Object(pod, {"spec"});
  const json& annotations = view.annotations();
  r.key = view.Key();
  std::string scheduler = view.scheduler_name();
  r.managed =
      std::find(scheduler_names.begin(), scheduler_names.end(), scheduler) != scheduler_names.end();
  sched::Task& t = r.task;
  t.uid = view.uid();
  t.name = view.name();
  t.ns = view.ns();
  ETNA_ASSIGN_OR_RETURN(t.request, PodRequest(view));
  r.node_name = view.node_name();
  std::string phase = view.phase();
  r.terminal = view.IsTerminal();
  if (r.terminal) {
    t.status = phase == "Succeeded" ? sched::TaskStatus::kSucceeded : sched::TaskStatus::kFailed;
  } else if (view.IsDeleting()) {
    t.status = sched::TaskStatus::kReleasing;
  } else if (!r.node_name.empty()) {
    t.status = phase == "Running" ? sched::TaskStatus::kRunning : sched::TaskStatus::kBound;
  }
  if (!r.managed) return r;
  std::string group = view.GroupName();
  if (!group.empty()) r.group = t.ns + "/" + group;
  if (group.empty()) {
    r.queue = view.Annotation(api::types::kQueueNameAnnotation);
    r.service = view.IsServicePod();
  }
  t.labels = StringMap(pod, {"metadata", "labels"});
  t.role = view.Annotation(api::types::kTaskSpecAnnotation);
  if (t.role.empty()) t.role = view.TaskName();
  if (auto priority = IntegerIfSet(spec, {"priority"})) {
    t.priority = static_cast<int32_t>(*priority);
    r.has_priority = true;
  }
  r.priority_class = String(spec, {"priorityClassName"});
  t.priority_class = r.priority_class;
  t.preemptable = view.Annotation(api::types::kPreemptableAnnotation) != "false";
  t.start_ms = std::max<TimeMs>(0, ParseRfc3339(String(pod, {"status", "startTime"})).value_or(0));
  t.creation_ms = std::max<TimeMs>(0, ParseRfc3339(view.creation_timestamp()).value_or(0));
  if (std::string ckpt = view.Annotation(api::types::kLastCheckpointAnnotation); !ckpt.empty()) {
    std::optional<TimeMs> at = ParseRfc3339(ckpt);
    if (!at) {
      return Status::InvalidArgument(
          fmt::format("pod {}: annotation {}: \"{}\" is not an RFC 3339 time", r.key,
                      api::types::kLastCheckpointAnnotation, ckpt));
    }
    t.last_checkpoint_ms = std::max<TimeMs>(0, *at);
  }
  if (!r.node_name.empty()) {
    Status s = DecodeHeldDevices(annotations, &t.devices, &r.mig_ids);
    if (!s.ok()) return Status::InvalidArgument(fmt::format("pod {}: {}", r.key, s.message()));
  }
  // The spec key: the fields ConvertPodSpec reads, so identical pods share one PodSpec.
  json key = json::object();
  for (const char* f : {"nodeSelector", "affinity", "tolerations", "topologySpreadConstraints"}) {
    if (spec.contains(f)) key[f] = spec[f];
  }
  // matchLabelKeys make the constraint depend on the pod's own labels.
  if (spec.contains("topologySpreadConstraints")) key["labels"] = view.labels();
  for (const char* a : {"nvidia.com/use-gputype", "volcano.sh/preferred-topology"}) {
    if (annotations.contains(a)) key[a] = annotations[a];
  }
  r.spec_key = key.empty() ? std::string() : key.dump();
  return r;
}

}  // namespace etna::scheduler
