#include "sched/actions/reservation.h"

#include <algorithm>
#include <map>
#include <string>

namespace etna::sched {
namespace {

// The gang is not ready and the job can still be scheduled.
bool Starving(const Session& s, const Job& job) {
  if (job.queue == kNone || job.pending == 0) return false;
  if (job.phase == PodGroupPhase::kCompleted) return false;
  if (s.queue(job.queue).state != QueueState::kOpen) return false;
  if (s.queue(job.queue).window.outside) return false;
  if (job.occupied + job.succeeded >= std::max(job.min_available, 1)) return false;
  return !s.JobValid(job).has_value();
}

// Lexicographic on GPUs, CPU, memory: true when `a` has more room than `b`.
bool MoreRoom(const ResourceVector& a, const ResourceVector& b) {
  for (ResourceId r : {kGpu, kCpu, kMemory}) {
    if (a.Get(r) != b.Get(r)) return a.Get(r) > b.Get(r);
  }
  return false;
}

std::vector<NodeIdx> NodesByRoom(const Session& s) {
  std::vector<NodeIdx> order;
  for (NodeIdx n = 0; n < static_cast<NodeIdx>(s.nodes().size()); ++n) {
    if (s.Schedulable(s.node(n))) order.push_back(n);
  }
  auto room = [&](NodeIdx n) { return s.node(n).Idle() + s.node(n).releasing; };
  std::stable_sort(order.begin(), order.end(),
                   [&](NodeIdx a, NodeIdx b) { return MoreRoom(room(a), room(b)); });
  return order;
}

}  // namespace

std::vector<std::pair<NodeIdx, ResourceVector>> ChooseReservedNodes(
    Session& s, Placer& placer, JobIdx ji, const std::vector<NodeIdx>& order,
    const std::vector<bool>& available) {
  const Job& job = s.job(ji);
  std::vector<TaskIdx> tasks;
  for (TaskIdx ti : s.PendingTasks(job)) {
    if (!s.task(ti).BestEffort()) tasks.push_back(ti);
  }
  size_t need = static_cast<size_t>(std::max(1, job.min_available - job.occupied - job.succeeded));
  if (tasks.size() > need) tasks.resize(need);
  if (tasks.empty()) return {};

  std::vector<std::pair<NodeIdx, ResourceVector>> out;
  std::vector<bool> assigned(tasks.size(), false);
  size_t left = tasks.size();
  for (NodeIdx n : order) {
    if (left == 0) break;
    if (!available[n]) continue;
    const Node& node = s.node(n);
    ResourceVector cap = node.allocatable - node.external_used;
    if (!node.gpus.empty()) {
      int64_t healthy = 0;
      for (const auto& g : node.gpus) healthy += g.healthy ? 1000 : 0;
      cap.Set(kGpu, std::min(cap.Get(kGpu), healthy));
    }
    ResourceVector amount;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (assigned[i]) continue;
      const Task& t = s.task(tasks[i]);
      if (!(amount + t.request).LessEqual(cap)) continue;
      if (!placer.AllPredicates(t, n).ok) continue;
      amount += t.request;
      assigned[i] = true;
      --left;
    }
    if (!amount.IsZero()) out.emplace_back(n, amount);
  }
  if (left > 0) return {};
  return out;
}

void UpdateReservations(Session& s, const ReservationPolicy& policy, Placer& placer) {
  std::vector<Reservation> next;
  if (!policy.enabled) {
    s.SetReservations(std::move(next));
    return;
  }
  std::map<std::string, JobIdx> by_uid;
  for (JobIdx j = 0; j < static_cast<JobIdx>(s.jobs().size()); ++j) by_uid[s.job(j).uid] = j;
  std::vector<bool> free_node(s.nodes().size(), true);
  std::vector<bool> reserved_job(s.jobs().size(), false);

  // Keep reservations whose job still starves and whose nodes can still take work.
  for (const Reservation& r : s.reservations()) {
    auto it = by_uid.find(r.job_uid);
    if (it == by_uid.end() || reserved_job[it->second] || !Starving(s, s.job(it->second))) {
      continue;
    }
    bool usable = !r.nodes.empty();
    for (const auto& [n, amount] : r.nodes) {
      usable &= n >= 0 && n < static_cast<NodeIdx>(s.nodes().size()) && free_node[n] &&
                s.Schedulable(s.node(n));
    }
    if (!usable) continue;  // chosen afresh below
    for (const auto& [n, amount] : r.nodes) free_node[n] = false;
    reserved_job[it->second] = true;
    next.push_back(r);
  }

  // New reservations for large jobs starving past the threshold, in job order.
  std::vector<JobIdx> candidates;
  for (JobIdx j = 0; j < static_cast<JobIdx>(s.jobs().size()); ++j) {
    const Job& job = s.job(j);
    if (reserved_job[j] || !Starving(s, job)) continue;
    if (job.phase != PodGroupPhase::kPending && job.phase != PodGroupPhase::kInqueue) continue;
    if (static_cast<int32_t>(job.tasks.size()) < policy.min_tasks) continue;
    if (s.now() - job.creation_ms < policy.starving_after_ms) continue;
    candidates.push_back(j);
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](JobIdx a, JobIdx b) { return s.CompareJobs(s.job(a), s.job(b)) < 0; });
  if (candidates.empty()) {
    s.SetReservations(std::move(next));
    return;
  }
  std::vector<NodeIdx> order = NodesByRoom(s);
  for (JobIdx j : candidates) {
    if (static_cast<int32_t>(next.size()) >= policy.max_jobs) break;
    auto nodes = ChooseReservedNodes(s, placer, j, order, free_node);
    if (nodes.empty()) continue;
    for (const auto& [n, amount] : nodes) free_node[n] = false;
    next.push_back(Reservation{s.job(j).uid, std::move(nodes), s.now()});
  }
  s.SetReservations(std::move(next));
}

}  // namespace etna::sched
