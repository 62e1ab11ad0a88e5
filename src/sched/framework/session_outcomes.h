// SessionOutcomes: the cycle's decision as it is taken, the bookkeeping that becomes Decision
// when the session closes: the binds, nominations and evictions of committed statements, which
// jobs were tried and why they stay pending, the queues' deserved shares, the reservations for
// the next cycle, and at the close each job's phase, condition and backoff.
//
// Actions record attempts and reasons; only a Statement records committed operations.
//
// Thread-safety: none. Lives on the session's thread for one cycle.
#pragma once

#include <string>
#include <vector>

#include "sched/framework/decision.h"
#include "sched/framework/policies.h"
#include "sched/model/snapshot.h"

namespace etna::sched {

class Statement;

// What a statement commit produces; the outcomes turn these into the Decision.
enum class OpKind : uint8_t { kAllocate, kPipeline, kEvict };

class SessionOutcomes {
 public:
  SessionOutcomes(const SessionOutcomes&) = delete;
  SessionOutcomes& operator=(const SessionOutcomes&) = delete;

  // An action tried to place the job; `placed` says whether it succeeded.
  void RecordAttempt(JobIdx j, bool placed);
  // Why the job is left pending, for its condition and for `etna explain`.
  void RecordUnschedulable(JobIdx j, std::string reason, std::string message);
  bool Attempted(JobIdx j) const { return job_outcomes_[j].attempted; }
  // Reservations to carry into the next cycle (replaces the previous set).
  void SetReservations(std::vector<Reservation> reservations);
  // The fair-share plugin's deserved share of queue `q` this cycle (for the queue reports).
  void ReportQueueDeserved(QueueIdx q, const ResourceLimit& deserved);
  // The fair-share plugin's normalized usage and factor of queue `q` (fairness/fairshare.h).
  void ReportQueueFairshare(QueueIdx q, double usage_share, double factor);
  // Operations committed so far this session; unchanged means no decision was taken since.
  size_t committed_ops() const { return committed_ops_; }

 protected:
  // One outcome per job of `snap`, remembering each job's phase at the start.
  explicit SessionOutcomes(const Snapshot& snap);
  ~SessionOutcomes() = default;

  // A job appended to the session (incremental use) with phase `phase`.
  void AddJob(PodGroupPhase phase);
  const ResourceLimit& queue_deserved(QueueIdx q) const { return queue_deserved_[q]; }
  struct QueueFairshareReport {
    bool reported = false;
    double usage_share = 0;
    double factor = 1;
  };
  const QueueFairshareReport& queue_fairshare(QueueIdx q) const { return queue_fairshare_[q]; }
  Decision& decision() { return decision_; }
  // Fills the decision's job updates (phase, condition, backoff after a failed attempt, what
  // evictions took from the job in its run, given this cycle's per job in `evicted`) and its
  // reservations, and hands the decision over.
  Decision Finish(const Snapshot& snap, const BackoffPolicy& backoff,
                  const std::vector<ResourceVector>& evicted);

 private:
  friend class Statement;
  struct JobOutcome {
    bool attempted = false;
    bool placed = false;
    std::string reason;
    std::string message;
    PodGroupPhase original_phase = PodGroupPhase::kPending;
  };
  // For Statement::Commit: one committed operation on task `ti` (`t`, on node `n`).
  void RecordCommitted(OpKind kind, TaskIdx ti, const Task& t, const Node& n, std::string reason,
                       std::string message, std::string preemptor_job_uid);
  PodGroupPhase DerivePhase(const Snapshot& snap, JobIdx ji) const;

  std::vector<JobOutcome> job_outcomes_;
  std::vector<ResourceLimit> queue_deserved_;
  std::vector<QueueFairshareReport> queue_fairshare_;
  std::vector<Reservation> next_reservations_;
  bool reservations_set_ = false;
  size_t committed_ops_ = 0;
  Decision decision_;
};

}  // namespace etna::sched
