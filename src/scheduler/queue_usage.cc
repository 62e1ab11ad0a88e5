#include "scheduler/queue_usage.h"

#include <cmath>

#include "common/resource.h"
#include "common/time.h"

namespace etna::scheduler {

using nlohmann::json;

StoredUsage ParseStoredUsage(const json& status_usage) {
  StoredUsage out;
  if (!status_usage.is_object()) return out;
  auto updated = status_usage.find("updated");
  auto resources = status_usage.find("resources");
  if (updated == status_usage.end() || !updated->is_string() || resources == status_usage.end() ||
      !resources->is_object()) {
    return out;
  }
  auto at = ParseRfc3339(updated->get<std::string>());
  if (!at) return out;
  sched::DecayedUsage usage;
  for (const auto& [name, value] : resources->items()) {
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
      return out;
    }
    auto id = ResourceNames::Global().Find(name);
    if (!id) continue;  // a resource this scheduler never met: nothing holds it
    usage.SetUnitSeconds(*id, value.get<double>());
  }
  out.usage = usage;
  out.at_ms = *at;
  return out;
}

void QueueUsage::Advance(TimeMs now, TimeMs half_life_ms, sched::Snapshot& snap,
                         const std::vector<ResourceVector>& held,
                         const std::vector<StoredUsage>& stored) {
  half_life_ms_ = half_life_ms;
  std::map<std::string, Entry> next;
  for (size_t q = 0; q < snap.queues.size(); ++q) {
    const std::string& name = snap.queues[q].name;
    Entry e;
    if (auto it = queues_.find(name); it != queues_.end()) {
      e = it->second;
      e.usage.Accrue(e.held, now - e.at, half_life_ms);
    } else if (q < stored.size() && stored[q].at_ms >= 0) {
      e.usage = stored[q].usage;
      e.usage.Accrue(held[q], now - stored[q].at_ms, half_life_ms);
    }
    e.held = held[q];
    e.at = now;
    snap.queues[q].usage = e.usage;
    next.emplace(name, std::move(e));
  }
  queues_ = std::move(next);
}

json QueueUsage::DueStatus(const std::string& name, TimeMs now,
                           const sched::QueueReport* report) const {
  auto it = queues_.find(name);
  if (it == queues_.end()) return nullptr;
  const Entry& e = it->second;
  if (e.written >= 0 && (now - e.written < kWritePeriodMs || e.usage.IsZero())) return nullptr;
  json resources = json::object();
  for (ResourceId d : {kCpu, kMemory, kGpu}) resources[ResourceNames::Global().Name(d)] = 0.0;
  for (int d = 0; d < kMaxResources; ++d) {
    auto id = static_cast<ResourceId>(d);
    if (d == kPods || e.usage.Get(id) == 0) continue;
    resources[ResourceNames::Global().Name(id)] = e.usage.UnitSeconds(id);
  }
  json out = {
      {"updated", FormatRfc3339Micro(e.at)},
      {"halfLife", half_life_ms_ % 1000 == 0 ? json(half_life_ms_ / 1000)
                                             : json(static_cast<double>(half_life_ms_) / 1000.0)},
      {"resources", resources}};
  if (report && report->fairshare) {
    out["share"] = report->usage_share;
    out["fairshareFactor"] = report->fairshare_factor;
  }
  return out;
}

void QueueUsage::Written(const std::string& name, TimeMs now) {
  if (auto it = queues_.find(name); it != queues_.end()) it->second.written = now;
}

sched::DecayedUsage QueueUsage::Of(const std::string& name) const {
  auto it = queues_.find(name);
  return it == queues_.end() ? sched::DecayedUsage() : it->second.usage;
}

}  // namespace etna::scheduler
