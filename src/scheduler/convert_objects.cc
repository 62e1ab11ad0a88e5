// Node, PodGroup, Queue and HyperNode → their model records.
#include <fmt/format.h>

#include "client/node_gpus.h"
#include "client/well_known.h"
#include "common/time.h"
#include "scheduler/convert.h"
#include "scheduler/json_fields.h"

namespace etna::scheduler {
namespace {

using fields::Arr;
using fields::Int;
using fields::LabelsOf;
using fields::Obj;
using fields::Str;

Result<ResourceLimit> ParseLimit(const json& list, const std::string& field) {
  ResourceLimit out;
  if (!list.is_object()) return out;
  ETNA_ASSIGN_OR_RETURN(auto v, ParseResourceList(list, field));
  for (const auto& [name, _] : list.items()) {
    ETNA_ASSIGN_OR_RETURN(ResourceId id, ResourceNames::Global().Intern(name));
    out.Set(id, v.Get(id));
  }
  return out;
}

TimeMs CreationOf(const json& object) {
  TimeMs t = ParseRfc3339(Str(Obj(object, "metadata"), "creationTimestamp")).value_or(0);
  return t < 0 ? 0 : t;
}

}  // namespace

Result<ResourceVector> ParseResourceList(const json& list, const std::string& field) {
  ResourceVector out;
  if (!list.is_object()) return out;
  for (const auto& [name, value] : list.items()) {
    auto id = ResourceNames::Global().Intern(name);
    if (!id.ok())
      return Status::InvalidArgument(fmt::format("{}[{}]: {}", field, name, id.status().message()));
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    auto amount = ParseQuantity(text, ResourceNames::Global().Unit(*id));
    if (!amount.ok()) {
      return Status::InvalidArgument(
          fmt::format("{}[{}]: {}", field, name, amount.status().message()));
    }
    out.Set(*id, *amount);
  }
  return out;
}

Result<sched::Node> ConvertNode(const json& node) {
  sched::Node n;
  const json& md = Obj(node, "metadata");
  const json& spec = Obj(node, "spec");
  const json& status = Obj(node, "status");
  n.name = Str(md, "name");
  n.labels = LabelsOf(Obj(md, "labels"));
  ETNA_ASSIGN_OR_RETURN(n.allocatable,
                        ParseResourceList(Obj(status, "allocatable"), "status.allocatable"));
  n.unschedulable = spec.value("unschedulable", false);
  if (spec.contains("taints") && spec["taints"].is_array()) {
    for (const auto& t : spec["taints"]) {
      sched::Taint taint{Str(t, "key"), Str(t, "value"), sched::Taint::Effect::kNoSchedule};
      std::string e = Str(t, "effect");
      if (e == "PreferNoSchedule") taint.effect = sched::Taint::Effect::kPreferNoSchedule;
      if (e == "NoExecute") taint.effect = sched::Taint::Effect::kNoExecute;
      n.taints.push_back(std::move(taint));
    }
  }
  n.ready = false;
  if (status.contains("conditions") && status["conditions"].is_array()) {
    for (const auto& c : status["conditions"]) {
      if (Str(c, "type") == "Ready") n.ready = Str(c, "status") == "True";
    }
  }
  std::string gpus_text = Str(Obj(md, "annotations"), client::kNodeGpusAnnotation);
  if (!gpus_text.empty()) {
    auto gpus = client::DecodeNodeGpus(gpus_text);
    if (!gpus.ok()) {
      return Status::InvalidArgument(fmt::format("node {}: annotation {}: {}", n.name,
                                                 client::kNodeGpusAnnotation,
                                                 gpus.status().message()));
    }
    for (const auto& g : *gpus) {
      sched::GpuDevice d;
      d.index = g.index;
      d.uuid = g.uuid;
      d.model = g.model;
      d.memory_mib = g.memory_mib;
      d.healthy = g.healthy;
      d.numa_node = g.numa;
      d.nvlink_domain = g.nvlink_domain;
      d.pcie_switch = g.pcie_switch;
      for (const auto& m : g.mig) d.mig.push_back({m.profile, m.id});
      n.gpus.push_back(std::move(d));
    }
  } else {
    // No device list: as many anonymous whole GPUs as the node offers.
    int64_t count = n.allocatable.Get(kGpu) / 1000;
    for (int32_t i = 0; i < count; ++i) {
      sched::GpuDevice d;
      d.index = i;
      d.model = Str(Obj(md, "labels"), client::kGpuModelLabel);
      n.gpus.push_back(std::move(d));
    }
  }
  return n;
}

Result<JobRecord> ConvertPodGroup(const json& podgroup) {
  JobRecord r;
  const json& md = Obj(podgroup, "metadata");
  const json& spec = Obj(podgroup, "spec");
  const json& status = Obj(podgroup, "status");
  r.key = KeyOf(podgroup);
  sched::Job& j = r.job;
  j.uid = Str(md, "uid");
  j.name = Str(md, "name");
  j.ns = Str(md, "namespace");
  j.creation_ms = CreationOf(podgroup);
  int64_t min_member = Int(spec, "minMember", 0);
  j.min_available = static_cast<int32_t>(Int(spec, "minAvailable", min_member));
  for (const auto& [role, n] : Obj(spec, "minTaskMember").items()) {
    if (n.is_number_integer()) j.min_task_member[role] = n.get<int32_t>();
  }
  ETNA_ASSIGN_OR_RETURN(j.min_resources,
                        ParseResourceList(Obj(spec, "minResources"), "spec.minResources"));
  std::string queue = Str(spec, "queue");
  if (!queue.empty()) r.queue = queue;
  r.priority_class = Str(spec, "priorityClassName");
  if (spec.contains("priority") && spec["priority"].is_number_integer()) {
    j.priority = spec["priority"].get<int32_t>();
    r.has_priority = true;
  }
  std::string phase = Str(status, "phase");
  if (phase == "Inqueue") j.phase = sched::PodGroupPhase::kInqueue;
  if (phase == "Running") j.phase = sched::PodGroupPhase::kRunning;
  if (phase == "Unknown") j.phase = sched::PodGroupPhase::kUnknown;
  if (phase == "Completed") j.phase = sched::PodGroupPhase::kCompleted;
  const json& nt = Obj(spec, "networkTopology");
  if (!nt.empty()) {
    std::string mode = Str(nt, "mode");
    j.network_topology.mode = mode == "soft" ? sched::Job::NetworkTopology::Mode::kSoft
                                             : sched::Job::NetworkTopology::Mode::kHard;
    j.network_topology.highest_tier_allowed =
        static_cast<int32_t>(Int(nt, "highestTierAllowed", 1));
  }
  if (Str(Obj(md, "labels"), "etna.io/workload") == "inference") {
    j.kind = sched::Job::Kind::kInference;
  }
  return r;
}

Result<QueueRecord> ConvertQueue(const json& queue) {
  QueueRecord r;
  const json& md = Obj(queue, "metadata");
  const json& spec = Obj(queue, "spec");
  sched::Queue& q = r.queue;
  q.name = Str(md, "name");
  q.creation_ms = CreationOf(queue);
  q.weight = static_cast<int32_t>(Int(spec, "weight", 1));
  q.priority = static_cast<int32_t>(Int(spec, "priority", 0));
  q.reclaimable = spec.value("reclaimable", true);
  ETNA_ASSIGN_OR_RETURN(q.capability, ParseLimit(Obj(spec, "capability"), "spec.capability"));
  ETNA_ASSIGN_OR_RETURN(q.deserved, ParseLimit(Obj(spec, "deserved"), "spec.deserved"));
  // The guarantee as Volcano writes it (guarantee.resource) or as the seed does (flat, or with
  // dotted `resource.<name>` keys); admission has checked the forms agree.
  json folded = Obj(Obj(spec, "guarantee"), "resource");
  for (const auto& [k, v] : Obj(spec, "guarantee").items()) {
    if (k == "resource") continue;
    folded[k.rfind("resource.", 0) == 0 ? k.substr(9) : k] = v;
  }
  ETNA_ASSIGN_OR_RETURN(q.guarantee, ParseLimit(folded, "spec.guarantee"));
  std::string state = Str(Obj(queue, "status"), "state");
  if (state.empty()) state = Str(spec, "state");
  if (state == "Closed") q.state = sched::QueueState::kClosed;
  if (state == "Closing") q.state = sched::QueueState::kClosing;
  r.parent = Str(spec, "parent");
  return r;
}

Result<HyperNodeRecord> ConvertHyperNode(const json& hypernode) {
  HyperNodeRecord r;
  const json& spec = Obj(hypernode, "spec");
  r.name = Str(Obj(hypernode, "metadata"), "name");
  r.tier = static_cast<int32_t>(Int(spec, "tier", 1));
  if (spec.contains("members") && spec["members"].is_array()) {
    for (const auto& m : spec["members"]) {
      const json& sel = Obj(m, "selector");
      std::string exact = Str(Obj(sel, "exactMatch"), "name");
      std::string pattern = Str(Obj(sel, "regexMatch"), "pattern");
      if (Str(m, "type") == "HyperNode") {
        if (!exact.empty()) r.hypernode_names.push_back(exact);
      } else if (!exact.empty()) {
        r.node_names.push_back(exact);
      } else if (!pattern.empty()) {
        r.node_patterns.push_back(pattern);
      }
    }
  }
  return r;
}

}  // namespace etna::scheduler
