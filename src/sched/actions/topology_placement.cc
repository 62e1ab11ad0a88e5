#include "sched/actions/topology_placement.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <vector>

namespace etna::sched {
namespace {

bool Placed(const Task& t) {
  return t.node != kNone && (HoldsNode(t.status) || t.status == TaskStatus::kPipelined);
}

}  // namespace

PlaceResult TopologyPlacement::Place(Placer& placer, Statement& stmt, JobIdx ji,
                                     const PlaceOptions& options) {
  Session& s = session_;
  if (!topology_) topology_ = std::make_unique<HyperNodeIndex>(s.nodes(), s.hypernodes());
  const Job& job = s.job(ji);
  std::vector<NodeIdx> held;
  for (TaskIdx ti : job.tasks) {
    if (Placed(s.task(ti))) held.push_back(s.task(ti).node);
  }
  const int32_t highest = std::max(1, job.network_topology.highest_tier_allowed);
  const auto& hypernodes = topology_->hypernodes();
  std::vector<bool> allowed(s.nodes().size(), false);
  auto restrict_to = [&](int32_t h) {
    std::fill(allowed.begin(), allowed.end(), false);
    for (NodeIdx n : topology_->Members(h)) allowed[n] = true;
    placer.SetNodeFilter(&allowed);
  };

  int32_t best = -1;
  size_t best_nodes = 0;
  int64_t best_left = 0;
  std::string last_failure;
  for (int32_t tier = 1; tier <= highest && best < 0; ++tier) {
    for (int32_t h = 0; h < static_cast<int32_t>(hypernodes.size()); ++h) {
      if (hypernodes[h].tier != tier) continue;
      bool holds_members = std::all_of(held.begin(), held.end(),
                                       [&](NodeIdx n) { return topology_->Contains(h, n); });
      if (!holds_members) continue;
      restrict_to(h);
      Statement trial(s);
      PlaceResult r = PlaceTasks(s, placer, trial, ji, options);
      bool ok = r.placed > 0 && (s.JobReady(job) || s.JobPipelined(job));
      if (ok) {
        std::set<NodeIdx> used;
        for (TaskIdx ti : job.tasks) {
          if (Placed(s.task(ti))) used.insert(s.task(ti).node);
        }
        int64_t left = 0;
        for (NodeIdx n : topology_->Members(h)) left += s.node(n).Idle().Get(kGpu);
        if (best < 0 || used.size() < best_nodes ||
            (used.size() == best_nodes && left < best_left)) {
          best = h;
          best_nodes = used.size();
          best_left = left;
        }
      } else if (!r.message.empty()) {
        last_failure = fmt::format("{}: {}", hypernodes[h].name, r.message);
      }
      trial.Discard();
    }
  }
  if (best < 0) {
    placer.SetNodeFilter(nullptr);
    PlaceResult r;
    r.blocked = true;
    r.reason = "NotEnoughResources";
    r.unplaced = static_cast<int>(s.PendingTasks(job).size());
    r.message =
        fmt::format("network topology hard mode: no hypernode of tier <= {} can hold the job{}{}",
                    highest, last_failure.empty() ? "" : "; last tried ", last_failure);
    return r;
  }
  restrict_to(best);
  PlaceResult r = PlaceTasks(s, placer, stmt, ji, options);
  placer.SetNodeFilter(nullptr);
  return r;
}

}  // namespace etna::sched
