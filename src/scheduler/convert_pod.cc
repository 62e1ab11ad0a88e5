// Pod → PodRecord: request, status, held devices, priority, role and placement constraints.
#include <fmt/format.h>

#include <algorithm>

#include "client/well_known.h"
#include "common/time.h"
#include "sched/devices/request.h"
#include "scheduler/convert.h"
#include "scheduler/json_fields.h"

namespace etna::scheduler {
namespace {

using fields::Arr;
using fields::Int;
using fields::LabelsOf;
using fields::Obj;
using fields::Str;

sched::SelectorRequirement::Op OpOf(const std::string& op) {
  using Op = sched::SelectorRequirement::Op;
  if (op == "NotIn") return Op::kNotIn;
  if (op == "Exists") return Op::kExists;
  if (op == "DoesNotExist") return Op::kDoesNotExist;
  if (op == "Gt") return Op::kGt;
  if (op == "Lt") return Op::kLt;
  return Op::kIn;
}

std::vector<sched::SelectorRequirement> Requirements(const json* list) {
  std::vector<sched::SelectorRequirement> out;
  if (!list) return out;
  for (const auto& r : *list) {
    sched::SelectorRequirement req;
    req.key = Str(r, "key");
    req.op = OpOf(Str(r, "operator"));
    if (const json* values = Arr(r, "values")) {
      for (const auto& v : *values) {
        if (v.is_string()) req.values.push_back(v.get<std::string>());
      }
    }
    out.push_back(std::move(req));
  }
  return out;
}

sched::NodeSelectorTerm TermOf(const json& t) {
  return {Requirements(Arr(t, "matchExpressions")), Requirements(Arr(t, "matchFields"))};
}

sched::PodAffinityTerm AffinityTermOf(const json& t) {
  sched::PodAffinityTerm out;
  const json& sel = Obj(t, "labelSelector");
  out.selector.match_labels = LabelsOf(Obj(sel, "matchLabels"));
  out.selector.match_expressions = Requirements(Arr(sel, "matchExpressions"));
  if (const json* ns = Arr(t, "namespaces")) {
    for (const auto& n : *ns) {
      if (n.is_string()) out.namespaces.push_back(n.get<std::string>());
    }
  }
  out.topology_key = Str(t, "topologyKey");
  return out;
}

void PodAffinity(const json& a, std::vector<sched::PodAffinityTerm>* required,
                 std::vector<sched::WeightedPodAffinityTerm>* preferred) {
  if (const json* req = Arr(a, "requiredDuringSchedulingIgnoredDuringExecution")) {
    for (const auto& t : *req) required->push_back(AffinityTermOf(t));
  }
  if (const json* pref = Arr(a, "preferredDuringSchedulingIgnoredDuringExecution")) {
    for (const auto& t : *pref) {
      preferred->push_back({t.value("weight", 0), AffinityTermOf(Obj(t, "podAffinityTerm"))});
    }
  }
}

sched::Taint::Effect EffectOf(const std::string& e) {
  if (e == "PreferNoSchedule") return sched::Taint::Effect::kPreferNoSchedule;
  if (e == "NoExecute") return sched::Taint::Effect::kNoExecute;
  return sched::Taint::Effect::kNoSchedule;
}

// Sum of the containers' requests (limits when a request is absent), at least each init
// container's.
Result<ResourceVector> PodRequest(const json& spec) {
  auto container_request = [](const json& c, const std::string& field) -> Result<ResourceVector> {
    const json& res = Obj(c, "resources");
    json merged = Obj(res, "limits");
    for (const auto& [k, v] : Obj(res, "requests").items()) merged[k] = v;
    return ParseResourceList(merged, field);
  };
  ResourceVector sum;
  if (const json* cs = Arr(spec, "containers")) {
    for (size_t i = 0; i < cs->size(); ++i) {
      ETNA_ASSIGN_OR_RETURN(
          auto r, container_request((*cs)[i], fmt::format("spec.containers[{}].resources", i)));
      sum += r;
    }
  }
  if (const json* cs = Arr(spec, "initContainers")) {
    for (size_t i = 0; i < cs->size(); ++i) {
      ETNA_ASSIGN_OR_RETURN(
          auto r, container_request((*cs)[i], fmt::format("spec.initContainers[{}].resources", i)));
      sum = sum.Max(r);
    }
  }
  return sum;
}

}  // namespace

std::string KeyOf(const json& object) {
  const json& md = Obj(object, "metadata");
  std::string ns = Str(md, "namespace");
  return ns.empty() ? Str(md, "name") : ns + "/" + Str(md, "name");
}

std::shared_ptr<const sched::PodSpec> ConvertPodSpec(const json& pod) {
  const json& spec = Obj(pod, "spec");
  const json& annotations = Obj(Obj(pod, "metadata"), "annotations");
  auto out = std::make_shared<sched::PodSpec>();
  for (const auto& [k, v] : Obj(spec, "nodeSelector").items()) {
    if (v.is_string()) out->node_selector[k] = v.get<std::string>();
  }
  const json& affinity = Obj(spec, "affinity");
  const json& na = Obj(affinity, "nodeAffinity");
  if (const json* terms =
          Arr(Obj(na, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms")) {
    for (const auto& t : *terms) out->node_affinity_required.push_back(TermOf(t));
  }
  if (const json* pref = Arr(na, "preferredDuringSchedulingIgnoredDuringExecution")) {
    for (const auto& p : *pref) {
      out->node_affinity_preferred.push_back({p.value("weight", 0), TermOf(Obj(p, "preference"))});
    }
  }
  PodAffinity(Obj(affinity, "podAffinity"), &out->pod_affinity_required,
              &out->pod_affinity_preferred);
  PodAffinity(Obj(affinity, "podAntiAffinity"), &out->pod_anti_affinity_required,
              &out->pod_anti_affinity_preferred);
  if (const json* tols = Arr(spec, "tolerations")) {
    for (const auto& t : *tols) {
      sched::Toleration tol;
      tol.key = Str(t, "key");
      tol.op = Str(t, "operator") == "Exists" ? sched::Toleration::Op::kExists
                                              : sched::Toleration::Op::kEqual;
      tol.value = Str(t, "value");
      std::string effect = Str(t, "effect");
      tol.any_effect = effect.empty();
      tol.effect = EffectOf(effect);
      out->tolerations.push_back(std::move(tol));
    }
  }
  std::string models = Str(annotations, "nvidia.com/use-gputype");
  if (!models.empty()) out->gpu_models = sched::devices::ParseGpuModels(models);
  out->require_full_nvlink = Str(annotations, "volcano.sh/preferred-topology") == "full";
  if (out->Unconstrained()) return nullptr;
  return out;
}

Result<PodRecord> ConvertPod(const json& pod, const std::vector<std::string>& scheduler_names) {
  PodRecord r;
  const json& md = Obj(pod, "metadata");
  const json& spec = Obj(pod, "spec");
  const json& status = Obj(pod, "status");
  const json& annotations = Obj(md, "annotations");
  r.key = KeyOf(pod);
  std::string scheduler = Str(spec, "schedulerName");
  r.managed =
      std::find(scheduler_names.begin(), scheduler_names.end(), scheduler) != scheduler_names.end();
  sched::Task& t = r.task;
  t.uid = Str(md, "uid");
  t.name = Str(md, "name");
  t.ns = Str(md, "namespace");
  ETNA_ASSIGN_OR_RETURN(t.request, PodRequest(spec));
  r.node_name = Str(spec, "nodeName");
  std::string phase = Str(status, "phase");
  bool deleting = md.contains("deletionTimestamp") && !md["deletionTimestamp"].is_null();
  if (phase == "Succeeded") {
    t.status = sched::TaskStatus::kSucceeded;
    r.terminal = true;
  } else if (phase == "Failed") {
    t.status = sched::TaskStatus::kFailed;
    r.terminal = true;
  } else if (deleting) {
    t.status = sched::TaskStatus::kReleasing;
  } else if (!r.node_name.empty()) {
    t.status = phase == "Running" ? sched::TaskStatus::kRunning : sched::TaskStatus::kBound;
  }
  if (!r.managed) return r;
  std::string group = Str(annotations, client::kGroupNameAnnotation);
  if (!group.empty()) r.group = t.ns + "/" + group;
  t.labels = LabelsOf(Obj(md, "labels"));
  t.role = Str(annotations, client::kTaskSpecAnnotation);
  if (t.role.empty()) t.role = Str(Obj(md, "labels"), client::kTaskSpecLabel);
  if (spec.contains("priority") && spec["priority"].is_number_integer()) {
    t.priority = spec["priority"].get<int32_t>();
    r.has_priority = true;
  }
  r.priority_class = Str(spec, "priorityClassName");
  t.priority_class = r.priority_class;
  t.preemptable = Str(annotations, client::kPreemptableAnnotation) != "false";
  t.start_ms = std::max<TimeMs>(0, ParseRfc3339(Str(status, "startTime")).value_or(0));
  t.creation_ms = std::max<TimeMs>(0, ParseRfc3339(Str(md, "creationTimestamp")).value_or(0));
  if (!r.node_name.empty()) {
    Status s = DecodeHeldDevices(annotations, &t.devices, &r.mig_ids);
    if (!s.ok()) return Status::InvalidArgument(fmt::format("pod {}: {}", r.key, s.message()));
  }
  // The spec key: the fields ConvertPodSpec reads, so identical pods share one PodSpec.
  json key = json::object();
  for (const char* f : {"nodeSelector", "affinity", "tolerations"}) {
    if (spec.contains(f)) key[f] = spec[f];
  }
  for (const char* a : {"nvidia.com/use-gputype", "volcano.sh/preferred-topology"}) {
    if (annotations.contains(a)) key[a] = annotations[a];
  }
  r.spec_key = key.empty() ? std::string() : key.dump();
  return r;
}

}  // namespace etna::scheduler
