#include "sched/actions/victim_search.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <unordered_map>

#include "sched/actions/no_plan_memo.h"
#include "sched/actions/zone_usage.h"
#include "sched/framework/statement.h"

namespace etna::sched {
namespace {

constexpr int64_t kPpm = 1'000'000;

int64_t FractionPpm(double fraction) { return std::llround(fraction * kPpm); }

// floor(total × ppm / 1e6), exact.
int64_t Share(int64_t total, int64_t ppm) {
  return static_cast<int64_t>(static_cast<__int128>(total) * ppm / kPpm);
}

// Whether `already + add` stays within `ppm` of `total` on every dimension `add` uses.
bool WithinShare(const ResourceVector& already, const ResourceVector& add,
                 const ResourceVector& total, int64_t ppm) {
  for (int d = 0; d < add.dims(); ++d) {
    int64_t a = add.Get(d);
    if (a <= 0) continue;
    if (already.Get(d) + a > Share(total.Get(d), ppm)) return false;
  }
  return true;
}

bool Running(const Task& t) { return HoldsNode(t.status) && t.status != TaskStatus::kReleasing; }

std::string JobName(const Job& j) { return fmt::format("{}/{}", j.ns, j.name); }

class VictimSearch {
 public:
  VictimSearch(Session& s, const EligibilityPolicy& e, const PlacerOptions& options)
      : s_(s),
        e_(e),
        policy_(s.preemption_policy()),
        placer_(s, options),
        zones_(s),
        memo_(s),
        cluster_ppm_(FractionPpm(policy_.max_cluster_fraction)),
        job_ppm_(FractionPpm(policy_.max_job_fraction)) {}

  void Run() {
    for (JobIdx j : Preemptors()) {
      const Job& job = s_.job(j);
      if (job.pending == 0 || !s_.JobStarving(job)) continue;  // earlier evictions may help
      TryJob(j);
    }
  }

 private:
  struct Plan {
    NodeIdx node = kNone;
    std::vector<TaskIdx> victims;  // in victim order
    double score = 0;
  };

  std::vector<JobIdx> Preemptors() {
    std::vector<JobIdx> out;
    for (JobIdx j = 0; j < static_cast<JobIdx>(s_.jobs().size()); ++j) {
      const Job& job = s_.job(j);
      if (job.queue == kNone || job.pending == 0) continue;
      const Queue& q = s_.queue(job.queue);
      if (q.window.outside) continue;  // starts no work outside its time windows
      bool admitted = job.phase == PodGroupPhase::kInqueue ||
                      job.phase == PodGroupPhase::kRunning || job.phase == PodGroupPhase::kUnknown;
      if (!admitted) {
        if (!(e_.admit_pending_jobs && job.phase == PodGroupPhase::kPending &&
              q.state == QueueState::kOpen && !(e_.pending_needs_share && s_.Overused(q)))) {
          continue;
        }
      }
      if (e_.skip_overused_queues && s_.Overused(q)) continue;
      if (s_.JobValid(job)) continue;
      if (s_.backoff_policy().Waiting(job.backoff, s_.now(), s_.capacity_generation())) continue;
      if (!s_.JobStarving(job)) continue;
      out.push_back(j);
    }
    std::stable_sort(out.begin(), out.end(), [&](JobIdx a, JobIdx b) {
      const Job& ja = s_.job(a);
      const Job& jb = s_.job(b);
      if (ja.queue != jb.queue) {
        if (int c = s_.CompareQueues(s_.queue(ja.queue), s_.queue(jb.queue))) return c < 0;
        return ja.queue < jb.queue;
      }
      return s_.CompareJobs(ja, jb) < 0;
    });
    return out;
  }

  // A task that found neither room nor victims, remembered until something is committed: a
  // later preemptor that holds nothing yet, in the same queue, with no higher priority, the
  // same placement constraints and at least the same request cannot do better, so it is not
  // searched again (without this a full cluster costs a node scan per starving job).
  struct Failure {
    QueueIdx queue;
    int32_t job_priority;
    int32_t task_priority;
    const PodSpec* spec;  // null when unconstrained
    ResourceVector request;
  };

  static const PodSpec* ConstraintKey(const Task& t) {
    return t.spec && !t.spec->Unconstrained() ? t.spec.get() : nullptr;
  }

  bool KnownToFail(const Job& job, const Task& t) {
    if (failures_pos_ != s_.committed_ops()) {
      failures_.clear();
      failures_pos_ = s_.committed_ops();
    }
    if (job.occupied != 0) return false;
    for (const Failure& f : failures_) {
      if (f.queue == job.queue && f.job_priority >= job.priority && f.task_priority >= t.priority &&
          f.spec == ConstraintKey(t) && f.request.LessEqual(t.request)) {
        return true;
      }
    }
    return false;
  }

  void TryJob(JobIdx j) {
    preemptor_job_ = j;
    const Job& job = s_.job(j);
    memo_.ClearJob();
    fresh_job_ = job.occupied == 0 && job.allocated.IsZero();
    AdvanceGangOrder(job.queue);
    Statement stmt(s_);
    int placed = 0;
    for (TaskIdx ti : s_.PendingTasks(job)) {
      if (!s_.JobStarving(job)) break;  // never evict more than the gang needs
      const Task& t = s_.task(ti);
      if (t.BestEffort()) continue;
      if (e_.entitled && !e_.entitled(s_, t)) break;
      if (placed == 0 && KnownToFail(job, t)) break;
      if (PlaceWithoutEviction(stmt, ti) || PlaceWithVictims(stmt, ti) ||
          (policy_.whole_gang && PlaceWithWholeGang(stmt, ti))) {
        ++placed;
        continue;
      }
      if (placed == 0 && job.occupied == 0) {
        failures_.push_back({job.queue, job.priority, t.priority, ConstraintKey(t), t.request});
      }
      break;
    }
    if (placed > 0 && s_.JobPipelined(job) &&
        (!ZoneUsage::Applies(job) || zones_.Violation(job).empty())) {
      stmt.Commit();
      ForgetPlansOfCommittedJob(job);
      if (job.phase == PodGroupPhase::kPending) s_.SetJobPhase(j, PodGroupPhase::kInqueue);
      s_.RecordAttempt(j, true);
    } else {
      stmt.Discard();  // Volcano #5022: no eviction survives a preemptor that does not fit
    }
  }

  bool PlaceWithoutEviction(Statement& stmt, TaskIdx ti) {
    Placer::Choice c = placer_.FindNode(ti, /*allow_pipeline=*/true, nullptr);
    return c && stmt.Pipeline(ti, c.node).ok();
  }

  bool PlaceWithVictims(Statement& stmt, TaskIdx ti) {
    // Nodes that fail now fail for every later task of the class, unless this job's own
    // uncommitted work is what makes them fail.
    NoPlanMemo::Scope scope =
        stmt.empty() && fresh_job_ ? NoPlanMemo::Scope::kGlobal : NoPlanMemo::Scope::kJob;
    std::optional<Plan> best = BestPlan(ti, scope);
    if (!best) return false;
    return Apply(stmt, ti, *best, /*whole_gang_note=*/"");
  }

  // Evicts the plan's victims and pipelines the task, all or nothing.
  bool Apply(Statement& stmt, TaskIdx ti, const Plan& plan, std::string_view note) {
    Statement step(s_);
    for (TaskIdx v : plan.victims) {
      if (!step.Evict(v, std::string(e_.reason), Message(ti, v, note), s_.job(preemptor_job_).uid)
               .ok()) {
        return false;
      }
    }
    if (!step.Pipeline(ti, plan.node).ok()) return false;
    stmt.Merge(step);
    return true;
  }

  std::string Message(TaskIdx ti, TaskIdx v, std::string_view note) const {
    const Task& t = s_.task(ti);
    const Job& pj = s_.job(preemptor_job_);
    std::string rule = e_.rule ? e_.rule(s_, t, s_.task(v)) : std::string();
    return fmt::format("{} by job {} (priority {}, queue {}) for task {}: {}{}",
                       e_.action == "reclaim" ? "reclaimed" : "preempted", JobName(pj), pj.priority,
                       s_.queue(pj.queue).name, t.name, rule, note);
  }

  // The best plan over every node; nodes that hold none are recorded in `record` scope (none:
  // inside a step that may be discarded, which would give back what made them fail).
  std::optional<Plan> BestPlan(TaskIdx ti, std::optional<NoPlanMemo::Scope> record) {
    const Task& t = s_.task(ti);
    std::optional<NoPlanMemo::Class> cls = NoPlanMemo::ClassOf(s_, t);
    std::optional<NoPlanMemo::Pass> memo;
    if (cls) memo.emplace(memo_.Begin(*cls, fresh_job_, record));
    std::optional<Plan> best;
    auto visit = [&](NodeIdx n) {
      if (memo && memo->Known(n)) return;
      const Node& node = s_.node(n);
      Plan p;
      p.node = n;
      if (!s_.Schedulable(node) || !placer_.AllPredicates(t, n).ok ||
          !PlanNode(ti, n, &p.victims)) {
        if (memo) memo->Failed(n);
        return;
      }
      if (memo) memo->Found(n);
      p.score = s_.NodeScore(t, node);
      if (!best || Better(p, *best)) best = std::move(p);
    };
    if (const std::vector<NodeIdx>* nodes = memo ? memo->Nodes() : nullptr) {
      for (NodeIdx n : *nodes) visit(n);
    } else {
      for (NodeIdx n = 0; n < static_cast<NodeIdx>(s_.nodes().size()); ++n) visit(n);
    }
    if (memo) memo->Finish();
    return best;
  }

  // (other queue, its priority, job priority): the classes the seed's order ranks victims by.
  std::tuple<int, int32_t, int32_t> Rank(const Task& v) const {
    const Job& vj = s_.job(v.job);
    const Job& pj = s_.job(preemptor_job_);
    bool other = vj.queue != pj.queue;
    return {other ? 1 : 0, other ? s_.queue(vj.queue).priority : 0, vj.priority};
  }

  bool Better(const Plan& a, const Plan& b) const {
    if (a.victims.empty() != b.victims.empty()) return a.victims.empty();
    if (!a.victims.empty()) {
      const Task& wa = s_.task(a.victims.back());
      const Task& wb = s_.task(b.victims.back());
      if (int c = s_.CompareVictims(wa, wb)) return c < 0;
      if (Rank(wa) != Rank(wb)) return Rank(wa) < Rank(wb);
      if (a.victims.size() != b.victims.size()) return a.victims.size() < b.victims.size();
      if (int c = CompareVictim(wa, wb)) return c < 0;
    }
    return a.score > b.score;
  }

  // < 0: `a` is evicted before `b`.
  int CompareVictim(const Task& a, const Task& b) const {
    if (int c = s_.CompareVictims(a, b)) return c;
    if (Rank(a) != Rank(b)) return Rank(a) < Rank(b) ? -1 : 1;
    if (a.priority != b.priority) return a.priority < b.priority ? -1 : 1;
    if (policy_.victim_order == VictimOrder::kLeastWorkLost) {
      TimeMs la = s_.now() - std::max(a.start_ms, a.last_checkpoint_ms);
      TimeMs lb = s_.now() - std::max(b.start_ms, b.last_checkpoint_ms);
      if (la != lb) return la < lb ? -1 : 1;
    }
    if (a.start_ms != b.start_ms) return a.start_ms < b.start_ms ? -1 : 1;
    TaskIdx ia = s_.IndexOf(a), ib = s_.IndexOf(b);
    return ia < ib ? -1 : (ia > ib ? 1 : 0);
  }

  bool Candidate(const Task& t, const Task& v) const {
    return Running(v) && v.preemptable && v.job != kNone && !v.BestEffort() &&
           e_.candidate(s_, policy_, t, v);
  }

  bool WithinLimits(const Task& v, bool whole_gang) const {
    if (!WithinShare(s_.evicted_this_cycle(), v.request, s_.cluster_total(), cluster_ppm_)) {
      return false;
    }
    if (whole_gang) return true;  // the whole job stops and is requeued: never left broken
    const Job& vj = s_.job(v.job);
    return WithinShare(vj.evicted_in_run + s_.evicted_this_cycle(v.job), v.request,
                       vj.total_request, job_ppm_);
  }

  // Victims on node `n` that make room for task `ti`, or false when none do.
  bool PlanNode(TaskIdx ti, NodeIdx n, std::vector<TaskIdx>* victims) {
    const Task& t = s_.task(ti);
    const Node& node = s_.node(n);
    victims->clear();
    if (s_.ResourceFits(t, node, node.FutureIdle(), /*check_devices=*/false, nullptr)) {
      return true;
    }
    std::vector<TaskIdx> remaining;
    ResourceVector bound = node.FutureIdle();
    for (TaskIdx v : node.tasks) {
      if (!Candidate(t, s_.task(v))) continue;
      remaining.push_back(v);
      bound += s_.task(v).request;
    }
    if (remaining.empty() || !s_.ResourceFits(t, node, bound, false, nullptr)) return false;
    std::sort(remaining.begin(), remaining.end(),
              [&](TaskIdx a, TaskIdx b) { return CompareVictim(s_.task(a), s_.task(b)) < 0; });
    const std::vector<TaskIdx> remaining_all = remaining;
    Statement trial(s_);
    std::vector<TaskIdx> picked;
    while (true) {
      std::set<TaskIdx> ok;
      if (auto allowed = e_.vote(s_, t, remaining, EvictionScope::kSpareMembers))
        ok.insert(allowed->begin(), allowed->end());
      auto it = std::find_if(remaining.begin(), remaining.end(), [&](TaskIdx v) {
        return ok.count(v) && WithinLimits(s_.task(v), /*whole_gang=*/false);
      });
      if (it == remaining.end()) {
        trial.Discard();
        return SingleVictim(t, node, remaining_all, victims);
      }
      TaskIdx v = *it;
      remaining.erase(it);
      if (!trial.Evict(v, "", "", "").ok()) return false;
      picked.push_back(v);
      if (s_.ResourceFits(t, node, node.FutureIdle(), false, nullptr)) break;
    }
    // Never evict more than needed: drop picks (most important first) the task fits without.
    ResourceVector avail = node.FutureIdle();
    std::vector<bool> keep(picked.size(), true);
    for (size_t i = picked.size(); i-- > 0;) {
      ResourceVector without = avail - s_.task(picked[i]).request;
      if (s_.ResourceFits(t, node, without, false, nullptr)) {
        avail = without;
        keep[i] = false;
      }
    }
    trial.Discard();
    for (size_t i = 0; i < picked.size(); ++i) {
      if (keep[i]) victims->push_back(picked[i]);
    }
    return true;
  }

  // The greedy walk can be stopped by a vote that an earlier pick used up (a gang's spare
  // member); one allowed victim that makes room alone, in victim order, is the fallback.
  bool SingleVictim(const Task& t, const Node& node, const std::vector<TaskIdx>& ordered,
                    std::vector<TaskIdx>* victims) {
    for (TaskIdx v : ordered) {
      const Task& vt = s_.task(v);
      if (!WithinLimits(vt, /*whole_gang=*/false)) continue;
      if (!s_.ResourceFits(t, node, node.FutureIdle() + vt.request, false, nullptr)) continue;
      // Voted alone, so the plugins judge it without the earlier candidates' consumption.
      auto alone = e_.vote(s_, t, {v}, EvictionScope::kSpareMembers);
      if (!alone || alone->empty()) continue;
      victims->assign(1, v);
      return true;
    }
    return false;
  }

  // When the job's run began (its earliest member start) and when its work was last safe: a
  // gang resumes from the oldest checkpoint its members share, so it loses now - that.
  std::pair<TimeMs, TimeMs> RunAndSafePoint(const Job& j) const {
    TimeMs started = 0, safe = 0;
    bool first = true;
    for (TaskIdx v : j.tasks) {
      const Task& t = s_.task(v);
      if (!Running(t)) continue;
      TimeMs task_safe = std::max(t.start_ms, t.last_checkpoint_ms);
      started = first ? t.start_ms : std::min(started, t.start_ms);
      safe = first ? task_safe : std::min(safe, task_safe);
      first = false;
    }
    return {started, safe};
  }

  // Gangs that may be evicted whole, in the seed's order (lowest queue priority when victims
  // come from other queues, lowest job priority, then least work lost or longest running),
  // ranked once per search; `live` skips gangs whose eviction was committed.
  struct GangOrder {
    std::vector<JobIdx> gangs;
    size_t live = 0;
  };

  // Where the victims of preemptors in queue `q` come from: q (preempt), every queue (reclaim).
  QueueIdx GangBucket(QueueIdx q) const { return e_.victims_in_own_queue ? q : kNone; }

  bool HasRunningTask(const Job& j) const {
    return std::any_of(j.tasks.begin(), j.tasks.end(),
                       [&](TaskIdx v) { return Running(s_.task(v)); });
  }

  // The order of the victims of preemptors in queue `q` (preempt: q's gangs; reclaim: all).
  GangOrder& GangOrderFor(QueueIdx q) {
    QueueIdx bucket = GangBucket(q);
    auto [it, inserted] = gang_orders_.try_emplace(bucket);
    if (!inserted) return it->second;
    struct Ranked {
      int32_t queue_priority, job_priority;
      TimeMs lost_since, run_start;  // lost_since negated: the more recent safe point first
      JobIdx job;
      auto Key() const {
        return std::tie(queue_priority, job_priority, lost_since, run_start, job);
      }
    };
    bool least_work_lost = policy_.victim_order == VictimOrder::kLeastWorkLost;
    std::vector<Ranked> ranked;
    for (JobIdx g = 0; g < static_cast<JobIdx>(s_.jobs().size()); ++g) {
      const Job& gj = s_.job(g);
      if (gj.queue == kNone || (bucket != kNone && gj.queue != bucket)) continue;
      if (!HasRunningTask(gj)) continue;
      auto [run, safe] = RunAndSafePoint(gj);
      ranked.push_back({bucket != kNone ? 0 : s_.queue(gj.queue).priority, gj.priority,
                        least_work_lost ? -safe : 0, run, g});
    }
    std::sort(ranked.begin(), ranked.end(),
              [](const Ranked& a, const Ranked& b) { return a.Key() < b.Key(); });
    for (const Ranked& r : ranked) it->second.gangs.push_back(r.job);
    return it->second;
  }

  // Between preemptor jobs (nothing uncommitted): steps past gangs that no longer run.
  void AdvanceGangOrder(QueueIdx q) {
    auto it = gang_orders_.find(GangBucket(q));
    if (it == gang_orders_.end()) return;
    GangOrder& order = it->second;
    while (order.live < order.gangs.size() && !HasRunningTask(s_.job(order.gangs[order.live]))) {
      ++order.live;
    }
  }

  // A committed preemptor's share grew: plans on its nodes may now take its tasks (preempt),
  // and its queue's work is easier to reclaim for other queues (reclaim).
  void ForgetPlansOfCommittedJob(const Job& job) {
    if (!e_.victims_in_own_queue) memo_.ForgetOtherQueues(job.queue);
    for (TaskIdx v : job.tasks) {
      const Task& t = s_.task(v);
      if (HoldsNode(t.status) && t.node != kNone) memo_.Touch(t.node);
    }
  }

  // Every task of gang `g` that holds a node, when all of them may be evicted; empty otherwise
  // (one member that may not go, or one pipelined this cycle, keeps the whole gang).
  std::vector<TaskIdx> WholeGangMembers(const Task& t, JobIdx g) const {
    std::vector<TaskIdx> members;
    for (TaskIdx v : s_.job(g).tasks) {
      const Task& vt = s_.task(v);
      if (vt.status == TaskStatus::kPipelined) return {};
      if (!Running(vt)) continue;
      if (!Candidate(t, vt)) return {};
      members.push_back(v);
    }
    return members;
  }

  // Whether a candidate member of gang `g` runs on a node task `t` may use.
  bool Reachable(const Task& t, JobIdx g) {
    for (TaskIdx v : s_.job(g).tasks) {
      const Task& vt = s_.task(v);
      if (Candidate(t, vt) && s_.Schedulable(s_.node(vt.node)) &&
          placer_.AllPredicates(t, vt.node).ok) {
        return true;
      }
    }
    return false;
  }

  // Evicts one lower-priority gang whole (every member in one step), then plans the task again.
  bool PlaceWithWholeGang(Statement& stmt, TaskIdx ti) {
    const Task& t = s_.task(ti);
    const Job& pj = s_.job(preemptor_job_);
    const GangOrder& order = GangOrderFor(pj.queue);
    for (size_t i = order.live; i < order.gangs.size(); ++i) {
      JobIdx g = order.gangs[i];
      if (g == preemptor_job_) continue;
      if (s_.job(g).priority >= pj.priority) {
        if (e_.victims_in_own_queue) break;  // ranked by job priority first
        continue;
      }
      if (!Reachable(t, g)) continue;
      std::vector<TaskIdx> members = WholeGangMembers(t, g);
      if (members.empty()) continue;
      std::optional<std::vector<TaskIdx>> allowed =
          e_.vote(s_, t, members, EvictionScope::kWholeGang);
      if (!allowed || allowed->size() != members.size()) continue;
      Statement step(s_);
      bool ok = true;
      for (TaskIdx v : members) {
        ok = WithinLimits(s_.task(v), /*whole_gang=*/true) &&
             step.Evict(v, std::string(e_.reason),
                        Message(ti, v, "; whole gang evicted (preemption.wholeGang)"), pj.uid)
                 .ok();
        if (!ok) break;
      }
      if (!ok) continue;  // `step` discards itself
      std::optional<Plan> plan = BestPlan(ti, std::nullopt);
      if (plan && Apply(step, ti, *plan, "")) {
        stmt.Merge(step);
        return true;
      }
    }
    return false;
  }

  Session& s_;
  const EligibilityPolicy& e_;
  const PreemptionPolicy policy_;
  Placer placer_;
  ZoneUsage zones_;  // minZoneUsage, checked before a statement commits
  NoPlanMemo memo_;
  bool fresh_job_ = false;  // the preemptor job held nothing when its attempt began
  std::unordered_map<QueueIdx, GangOrder> gang_orders_;
  int64_t cluster_ppm_;
  int64_t job_ppm_;
  JobIdx preemptor_job_ = kNone;
  std::vector<Failure> failures_;
  size_t failures_pos_ = 0;
};

}  // namespace

EligibilityPolicy PreemptEligibility() {
  EligibilityPolicy e;
  e.action = "preempt";
  e.reason = "Preempted";
  e.admit_pending_jobs = true;
  e.victims_in_own_queue = true;
  e.candidate = [](const Session& s, const PreemptionPolicy& policy, const Task& p, const Task& v) {
    const Job& pj = s.job(p.job);
    const Job& vj = s.job(v.job);
    if (vj.queue != pj.queue) return false;
    if (v.job == p.job) return v.priority < p.priority;
    return !policy.require_higher_priority || vj.priority < pj.priority;
  };
  e.vote = [](const Session& s, const Task& p, const std::vector<TaskIdx>& c, EvictionScope scope) {
    return s.Preemptable(p, c, scope);
  };
  e.rule = [](const Session& s, const Task& p, const Task& v) -> std::string {
    if (v.job == p.job) {
      return fmt::format("a higher-priority task of the same job (task priority {} < {})",
                         v.priority, p.priority);
    }
    return fmt::format("higher-priority job in the same queue (victim job {} priority {})",
                       JobName(s.job(v.job)), s.job(v.job).priority);
  };
  return e;
}

EligibilityPolicy ReclaimEligibility() {
  EligibilityPolicy e;
  e.action = "reclaim";
  e.reason = "Reclaimed";
  e.admit_pending_jobs = true;
  e.pending_needs_share = true;
  e.skip_overused_queues = true;
  e.entitled = [](const Session& s, const Task& p) {
    return s.Preemptive(s.queue(s.job(p.job).queue), p);
  };
  e.candidate = [](const Session& s, const PreemptionPolicy&, const Task& p, const Task& v) {
    QueueIdx vq = s.job(v.job).queue;
    return vq != kNone && vq != s.job(p.job).queue && s.queue(vq).reclaimable;
  };
  e.vote = [](const Session& s, const Task& p, const std::vector<TaskIdx>& c, EvictionScope scope) {
    return s.Reclaimable(p, c, scope);
  };
  e.rule = [](const Session& s, const Task& p, const Task& v) -> std::string {
    return fmt::format("queue {} is entitled to resources held by reclaimable queue {}",
                       s.queue(s.job(p.job).queue).name, s.queue(s.job(v.job).queue).name);
  };
  return e;
}

void RunVictimSearch(Session& session, const EligibilityPolicy& eligibility,
                     const PlacerOptions& placer_options) {
  VictimSearch(session, eligibility, placer_options).Run();
}

}  // namespace etna::sched
