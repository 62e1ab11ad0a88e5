// Node, PodGroup, Queue and HyperNode → their model records.
#include <fmt/format.h>

#include <chrono>

#include "api/types/node.h"
#include "api/types/podgroup.h"
#include "api/types/queue.h"
#include "api/types/well_known.h"
#include "client/node_gpus.h"
#include "common/time.h"
#include "scheduler/convert.h"

namespace etna::scheduler {
namespace {

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

TimeMs CreationOf(const api::types::ObjectView& object) {
  TimeMs t = ParseRfc3339(object.creation_timestamp()).value_or(0);
  return t < 0 ? 0 : t;
}

// A Go duration ("2h30m") in ms; 0 when `text` is empty. `field` names it in the error.
Result<TimeMs> DurationMs(const std::string& text, const std::string& key,
                          const std::string& field) {
  if (text.empty()) return TimeMs{0};
  auto d = ParseGoDuration(text);
  if (!d.ok() || d->count() < 0) {
    return Status::InvalidArgument(fmt::format(
        "podgroup {}: {}: \"{}\" is not a duration such as \"2h30m\"", key, field, text));
  }
  return static_cast<TimeMs>(std::chrono::duration_cast<std::chrono::milliseconds>(*d).count());
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

json EncodeResourceList(const ResourceVector& amounts) {
  json out = json::object();
  for (int d = 0; d < amounts.dims(); ++d) {
    auto id = static_cast<ResourceId>(d);
    if (int64_t v = amounts.Get(id); v != 0) {
      out[ResourceNames::Global().Name(id)] = FormatQuantity(id, v);
    }
  }
  return out;
}

Result<sched::Node> ConvertNode(const json& node) {
  sched::Node n;
  api::types::Node view(node);
  n.name = view.name();
  n.labels = StringMap(node, {"metadata", "labels"});
  ETNA_ASSIGN_OR_RETURN(n.allocatable, ParseResourceList(view.allocatable(), "status.allocatable"));
  n.unschedulable = view.unschedulable();
  for (const auto& t : view.taints()) {
    sched::Taint taint{String(t, {"key"}), String(t, {"value"}), sched::Taint::Effect::kNoSchedule};
    std::string e = String(t, {"effect"});
    if (e == "PreferNoSchedule") taint.effect = sched::Taint::Effect::kPreferNoSchedule;
    if (e == "NoExecute") taint.effect = sched::Taint::Effect::kNoExecute;
    n.taints.push_back(std::move(taint));
  }
  n.ready = view.IsReady();
  std::string gpus_text = view.Annotation(api::types::kNodeGpusAnnotation);
  if (!gpus_text.empty()) {
    auto gpus = client::DecodeNodeGpus(gpus_text);
    if (!gpus.ok()) {
      return Status::InvalidArgument(fmt::format("node {}: annotation {}: {}", n.name,
                                                 api::types::kNodeGpusAnnotation,
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
      d.model = view.Label(api::types::kGpuModelLabel);
      n.gpus.push_back(std::move(d));
    }
  }
  return n;
}

Result<JobRecord> ConvertPodGroup(const json& podgroup) {
  JobRecord r;
  api::types::PodGroup view(podgroup);
  const json& spec = Object(podgroup, {"spec"});
  r.key = view.Key();
  sched::Job& j = r.job;
  j.uid = view.uid();
  j.name = view.name();
  j.ns = view.ns();
  j.creation_ms = CreationOf(view);
  j.min_available = static_cast<int32_t>(view.MinAvailable());
  for (const auto& [role, n] : Object(spec, {"minTaskMember"}).items()) {
    if (n.is_number_integer()) j.min_task_member[role] = n.get<int32_t>();
  }
  ETNA_ASSIGN_OR_RETURN(j.min_resources,
                        ParseResourceList(Object(spec, {"minResources"}), "spec.minResources"));
  ETNA_ASSIGN_OR_RETURN(j.min_zone_usage,
                        ParseResourceList(Object(spec, {"minZoneUsage"}), "spec.minZoneUsage"));
  if (std::string queue = String(spec, {"queue"}); !queue.empty()) r.queue = queue;
  r.priority_class = String(spec, {"priorityClassName"});
  if (auto priority = IntegerIfSet(spec, {"priority"})) {
    j.priority = static_cast<int32_t>(*priority);
    r.has_priority = true;
  }
  std::string phase = view.phase();
  if (phase == "Inqueue") j.phase = sched::PodGroupPhase::kInqueue;
  if (phase == "Running") j.phase = sched::PodGroupPhase::kRunning;
  if (phase == "Unknown") j.phase = sched::PodGroupPhase::kUnknown;
  if (phase == "Completed") j.phase = sched::PodGroupPhase::kCompleted;
  const json& nt = Object(spec, {"networkTopology"});
  if (!nt.empty()) {
    std::string mode = String(nt, {"mode"});
    j.network_topology.mode = mode == "soft" ? sched::Job::NetworkTopology::Mode::kSoft
                                             : sched::Job::NetworkTopology::Mode::kHard;
    j.network_topology.highest_tier_allowed =
        static_cast<int32_t>(Integer(nt, {"highestTierAllowed"}, 1));
  }
  ETNA_ASSIGN_OR_RETURN(j.running_estimate_ms,
                        DurationMs(view.running_estimate(), r.key, "spec.runningEstimate"));
  ETNA_ASSIGN_OR_RETURN(
      j.sla_waiting_ms,
      DurationMs(view.Annotation(api::types::kSlaWaitingTimeAnnotation), r.key,
                 fmt::format("annotation {}", api::types::kSlaWaitingTimeAnnotation)));
  const json& lost = view.evicted_in_run();
  const std::string lost_field = fmt::format("status.{}", api::types::kEvictedInRunStatusField);
  ETNA_ASSIGN_OR_RETURN(j.evicted_in_run,
                        ParseResourceList(Object(lost, {"resources"}), lost_field + ".resources"));
  if (std::string since = String(lost, {"since"}); !since.empty()) {
    std::optional<TimeMs> at = ParseRfc3339(since);
    if (!at) {
      return Status::InvalidArgument(fmt::format(
          "podgroup {}: {}.since: \"{}\" is not an RFC 3339 time", r.key, lost_field, since));
    }
    j.evicted_since_ms = *at;
  }
  if (view.Label(api::types::kWorkloadLabel) == api::types::kInferenceWorkload) {
    j.kind = sched::Job::Kind::kInference;
  }
  return r;
}

Result<QueueRecord> ConvertQueue(const json& queue) {
  QueueRecord r;
  api::types::Queue view(queue);
  sched::Queue& q = r.queue;
  q.name = view.name();
  q.creation_ms = CreationOf(view);
  q.weight = static_cast<int32_t>(view.weight());
  q.priority = static_cast<int32_t>(view.priority());
  q.reclaimable = view.reclaimable();
  ETNA_ASSIGN_OR_RETURN(q.capability, ParseLimit(view.capability(), "spec.capability"));
  ETNA_ASSIGN_OR_RETURN(q.deserved, ParseLimit(view.deserved(), "spec.deserved"));
  ETNA_ASSIGN_OR_RETURN(q.guarantee, ParseLimit(view.Guarantee(), "spec.guarantee"));
  std::string state = view.State();
  if (state == "Closed") q.state = sched::QueueState::kClosed;
  if (state == "Closing") q.state = sched::QueueState::kClosing;
  r.parent = view.parent();
  const json& policies = view.time_policies();
  for (size_t i = 0; i < policies.size(); ++i) {
    std::string field = fmt::format("spec.timePolicies[{}]", i);
    TimePolicy p;
    if (std::string days = String(policies[i], {"weekdays"}); !days.empty()) {
      auto parsed = ParseWeekdays(days);
      if (!parsed.ok()) return parsed.status().WithContext(field + ".weekdays");
      p.weekdays = *parsed;
    }
    if (std::string hours = String(policies[i], {"hours"}); !hours.empty()) {
      auto parsed = ParseHours(hours);
      if (!parsed.ok()) return parsed.status().WithContext(field + ".hours");
      p.hours = *parsed;
    }
    r.time_policies.push_back(p);
  }
  q.window.suspend = view.time_policy_action() == "Suspend";
  r.stored_usage = ParseStoredUsage(view.usage());
  return r;
}

Result<HyperNodeRecord> ConvertHyperNode(const json& hypernode) {
  HyperNodeRecord r;
  r.name = api::types::ObjectView(hypernode).name();
  r.tier = static_cast<int32_t>(Integer(hypernode, {"spec", "tier"}, 1));
  for (const auto& m : Array(hypernode, {"spec", "members"})) {
    std::string exact = String(m, {"selector", "exactMatch", "name"});
    std::string pattern = String(m, {"selector", "regexMatch", "pattern"});
    if (String(m, {"type"}) == "HyperNode") {
      if (!exact.empty()) r.hypernode_names.push_back(exact);
    } else if (!exact.empty()) {
      r.node_names.push_back(exact);
    } else if (!pattern.empty()) {
      r.node_patterns.push_back(pattern);
    }
  }
  return r;
}

}  // namespace etna::scheduler
