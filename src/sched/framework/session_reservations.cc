#include "sched/framework/session_reservations.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace etna::sched {

void MarkReservedNodes(Snapshot& snap) {
  for (auto& n : snap.nodes) {
    n.reserved = ResourceVector();
    n.reserved_for = kNone;
    n.reserved_start_ms = -1;
  }
  std::map<std::string, JobIdx> by_uid;
  for (size_t j = 0; j < snap.jobs.size(); ++j) by_uid[snap.jobs[j].uid] = static_cast<JobIdx>(j);
  for (const auto& r : snap.reservations) {
    auto it = by_uid.find(r.job_uid);
    if (it == by_uid.end()) continue;
    JobIdx ji = it->second;
    constexpr TimeMs kUnknown = -1;
    TimeMs start = snap.now_ms;
    std::vector<NodeIdx> claimed;
    for (const auto& [ni, amount] : r.nodes) {
      if (ni < 0 || ni >= static_cast<NodeIdx>(snap.nodes.size())) continue;
      Node& n = snap.nodes[ni];
      if (n.reserved_for != kNone && n.reserved_for != ji) continue;  // first claim wins
      claimed.push_back(ni);
      n.reserved_for = ji;
      n.reserved += amount;
      if (start == kUnknown) continue;
      ResourceVector free = n.Idle();
      std::vector<std::pair<TimeMs, const Task*>> leaving;
      for (TaskIdx ti : n.tasks) {
        const Task& t = snap.tasks[ti];
        if (t.job == ji || t.status == TaskStatus::kPipelined) continue;
        TimeMs end = kUnknown;
        if (t.status == TaskStatus::kReleasing) {
          end = snap.now_ms;
        } else if (t.job != kNone && snap.jobs[t.job].running_estimate_ms > 0) {
          end = std::max(snap.now_ms, t.start_ms + snap.jobs[t.job].running_estimate_ms);
        }
        leaving.emplace_back(end == kUnknown ? INT64_MAX : end, &t);
      }
      std::stable_sort(leaving.begin(), leaving.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      TimeMs ready = snap.now_ms;
      for (const auto& [end, t] : leaving) {
        if (n.reserved.LessEqual(free)) break;
        free += t->request;
        ready = end;
      }
      if (!n.reserved.LessEqual(free) || ready == INT64_MAX) {
        start = kUnknown;
      } else {
        start = std::max(start, ready);
      }
    }
    for (NodeIdx ni : claimed) snap.nodes[ni].reserved_start_ms = start;
  }
}

bool MayUseReserved(const Snapshot& snap, const Task& t, const Node& n) {
  if (n.reserved_for == kNone || t.job == n.reserved_for) return true;
  if (n.reserved_start_ms < 0 || t.job == kNone) return false;
  TimeMs estimate = snap.jobs[t.job].running_estimate_ms;
  return estimate > 0 && snap.now_ms + estimate <= n.reserved_start_ms;
}

}  // namespace etna::sched
