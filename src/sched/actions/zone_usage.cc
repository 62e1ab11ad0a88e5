// ZoneUsage (zone_usage.h): PodGroup minZoneUsage over a gang's tentative placement.
#include "sched/actions/zone_usage.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

namespace etna::sched {

void ZoneUsage::Build() {
  topology_ = std::make_unique<HyperNodeIndex>(session_.nodes(), session_.hypernodes());
  const auto& hypernodes = topology_->hypernodes();
  std::map<int32_t, int32_t> zone_of_hypernode;
  zone_of_.assign(session_.nodes().size(), -1);
  for (NodeIdx n = 0; n < static_cast<NodeIdx>(session_.nodes().size()); ++n) {
    int32_t zone = -1;
    for (int32_t h : topology_->Containing(n)) {
      if (hypernodes[h].tier != 1) continue;
      auto [it, added] = zone_of_hypernode.emplace(h, static_cast<int32_t>(names_.size()));
      if (added) names_.push_back(hypernodes[h].name);
      zone = it->second;
      break;
    }
    if (zone < 0) {  // in no switch: a zone of its own
      zone = static_cast<int32_t>(names_.size());
      names_.push_back(session_.node(n).name);
    }
    zone_of_[n] = zone;
  }
  members_.assign(names_.size(), {});
  for (NodeIdx n = 0; n < static_cast<NodeIdx>(zone_of_.size()); ++n) {
    members_[zone_of_[n]].push_back(n);
  }
}

std::vector<ResourceVector> ZoneUsage::Usage(const Job& job) const {
  std::vector<ResourceVector> usage(names_.size());
  for (TaskIdx ti : job.tasks) {
    const Task& t = session_.task(ti);
    if (t.node != kNone && CountsForGang(t.status)) usage[zone_of_[t.node]] += t.request;
  }
  return usage;
}

std::string ZoneUsage::Violation(const Job& job) {
  if (!topology_) Build();
  std::vector<ResourceVector> usage = Usage(job);
  const ResourceVector& min = job.min_zone_usage;
  for (int d = 0; d < min.dims(); ++d) {
    if (min.Get(d) <= 0) continue;
    for (size_t z = 0; z < usage.size(); ++z) {
      int64_t got = usage[z].Get(d);
      if (got <= 0 || got >= min.Get(d)) continue;
      return fmt::format(
          "minZoneUsage: zone {} would get {} {}, the PodGroup needs at least {} in every zone it "
          "uses",
          names_[z], FormatQuantity(d, got), ResourceNames::Global().Name(d),
          FormatQuantity(d, min.Get(d)));
    }
  }
  return "";
}

PlaceResult ZoneUsage::Place(Placer& placer, Statement& stmt, JobIdx ji, bool zone_fill,
                             const std::function<PlaceResult(Statement&)>& first) {
  const Job& job = session_.job(ji);
  auto settles = [&] {
    return !stmt.empty() && (session_.JobReady(job) || session_.JobPipelined(job));
  };
  PlaceResult r = first(stmt);
  if (!settles()) return r;
  std::string why = Violation(job);
  if (why.empty()) return r;
  stmt.Discard();
  if (zone_fill) {
    PlaceResult by_zone = PlaceByZone(placer, stmt, ji);
    if (settles() && Violation(job).empty()) return by_zone;
    stmt.Discard();
  }
  PlaceResult blocked;
  blocked.blocked = true;
  blocked.reason = "NotEnoughResources";
  blocked.message = std::move(why);
  blocked.unplaced = static_cast<int>(session_.PendingTasks(job).size());
  return blocked;
}

PlaceResult ZoneUsage::PlaceByZone(Placer& placer, Statement& stmt, JobIdx ji) {
  const Job& job = session_.job(ji);
  // The first resource the rule names drives the choice; Violation checks them all after.
  int d = 0;
  while (d < job.min_zone_usage.dims() && job.min_zone_usage.Get(d) <= 0) ++d;
  const int64_t min = job.min_zone_usage.Get(d);
  const size_t zones = names_.size();
  std::vector<int64_t> have(zones, 0), idle(zones, 0);
  std::vector<ResourceVector> usage = Usage(job);
  for (size_t z = 0; z < zones; ++z) {
    have[z] = usage[z].Get(d);
    for (NodeIdx n : members_[z]) {
      const Node& node = session_.node(n);
      idle[z] += std::max<int64_t>(0, std::max(node.Idle().Get(d), node.FutureIdle().Get(d)));
    }
  }
  int64_t remaining = 0;
  for (TaskIdx ti : session_.PendingTasks(job)) {
    if (!session_.task(ti).BestEffort()) remaining += session_.task(ti).request.Get(d);
  }
  std::vector<bool> allowed(session_.nodes().size(), false);
  auto try_zone = [&](size_t z, TaskIdx ti, bool allow_pipeline) {
    std::fill(allowed.begin(), allowed.end(), false);
    for (NodeIdx n : members_[z]) allowed[n] = true;
    placer.SetNodeFilter(&allowed);
    return placer.FindNode(ti, allow_pipeline, nullptr);
  };

  PlaceOptions options;
  options.find_node = [&](TaskIdx ti, bool allow_pipeline, FitErrors*) -> Placer::Choice {
    const int64_t need = session_.task(ti).request.Get(d);
    if (need <= 0) {
      placer.SetNodeFilter(nullptr);
      return placer.FindNode(ti, allow_pipeline, nullptr);
    }
    // Zones the gang uses below the minimum, then those it uses (most first), then new ones
    // (most idle first).
    std::vector<size_t> order(zones);
    std::iota(order.begin(), order.end(), 0);
    auto rank = [&](size_t z) { return have[z] == 0 ? 2 : have[z] < min ? 0 : 1; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      if (rank(a) != rank(b)) return rank(a) < rank(b);
      return rank(a) == 2 ? idle[a] > idle[b] : have[a] > have[b];
    });
    for (bool avoid_stranding : {true, false}) {
      for (size_t z : order) {
        if (have[z] == 0 && (remaining < min || idle[z] < min)) continue;  // cannot reach min
        const int64_t rest = remaining - need;
        bool strands = rest > 0 && rest < min && idle[z] - need < rest && have[z] + need >= min;
        if (avoid_stranding && strands) continue;
        if (Placer::Choice c = try_zone(z, ti, allow_pipeline)) {
          have[z] += need;
          idle[z] -= need;
          remaining -= need;
          return c;
        }
      }
    }
    return {};
  };
  PlaceResult r = PlaceTasks(session_, placer, stmt, ji, options);
  placer.SetNodeFilter(nullptr);
  return r;
}

}  // namespace etna::sched
