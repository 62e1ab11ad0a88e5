#include "sched/framework/session_outcomes.h"

#include <utility>

namespace etna::sched {

SessionOutcomes::SessionOutcomes(const Snapshot& snap) {
  job_outcomes_.resize(snap.jobs.size());
  queue_deserved_.resize(snap.queues.size());
  queue_fairshare_.resize(snap.queues.size());
  for (size_t j = 0; j < snap.jobs.size(); ++j) {
    job_outcomes_[j].original_phase = snap.jobs[j].phase;
  }
}

void SessionOutcomes::AddJob(PodGroupPhase phase) {
  JobOutcome outcome;
  outcome.original_phase = phase;
  job_outcomes_.push_back(std::move(outcome));
}

void SessionOutcomes::RecordCommitted(OpKind kind, TaskIdx ti, const Task& t, const Node& n,
                                      std::string reason, std::string message,
                                      std::string preemptor_job_uid) {
  ++committed_ops_;
  switch (kind) {
    case OpKind::kAllocate: {
      BindDecision b{ti, t.uid, t.name, t.ns, n.name, {}, {}, t.devices};
      for (const auto& d : t.devices) {
        b.gpu_indices.push_back(d.gpu);
        b.gpu_uuids.push_back(n.gpus[d.gpu].uuid);
      }
      decision_.binds.push_back(std::move(b));
      break;
    }
    case OpKind::kPipeline:
      decision_.nominations.push_back({ti, t.uid, n.name});
      break;
    case OpKind::kEvict:
      decision_.evictions.push_back({ti, t.uid, t.name, t.ns, n.name, std::move(reason),
                                     std::move(message), std::move(preemptor_job_uid)});
      break;
  }
}

void SessionOutcomes::RecordAttempt(JobIdx j, bool placed) {
  job_outcomes_[j].attempted = true;
  job_outcomes_[j].placed = placed;
  if (placed) {
    job_outcomes_[j].reason.clear();
    job_outcomes_[j].message.clear();
  }
}

void SessionOutcomes::RecordUnschedulable(JobIdx j, std::string reason, std::string message) {
  job_outcomes_[j].reason = std::move(reason);
  job_outcomes_[j].message = std::move(message);
}

void SessionOutcomes::SetReservations(std::vector<Reservation> reservations) {
  next_reservations_ = std::move(reservations);
  reservations_set_ = true;
}

void SessionOutcomes::ReportQueueDeserved(QueueIdx q, const ResourceLimit& deserved) {
  queue_deserved_[q] = deserved;
}

void SessionOutcomes::ReportQueueFairshare(QueueIdx q, double usage_share, double factor) {
  queue_fairshare_[q] = {true, usage_share, factor};
}

PodGroupPhase SessionOutcomes::DerivePhase(const Snapshot& snap, JobIdx ji) const {
  const Job& job = snap.jobs[ji];
  int finished = 0, live = 0;
  for (TaskIdx ti : job.tasks) {
    TaskStatus s = snap.tasks[ti].status;
    if (s == TaskStatus::kSucceeded || s == TaskStatus::kFailed)
      ++finished;
    else
      ++live;
  }
  if (!job.tasks.empty() && live == 0) return PodGroupPhase::kCompleted;
  int holding = 0;
  for (TaskIdx ti : job.tasks)
    holding += HoldsNode(snap.tasks[ti].status) && snap.tasks[ti].status != TaskStatus::kReleasing;
  if (holding + job.succeeded >= job.min_available && holding > 0) return PodGroupPhase::kRunning;
  if (holding > 0 && job_outcomes_[ji].attempted && !job_outcomes_[ji].placed) {
    return PodGroupPhase::kUnknown;
  }
  if (job.phase == PodGroupPhase::kRunning || job.phase == PodGroupPhase::kUnknown) {
    return holding > 0 ? job.phase : PodGroupPhase::kPending;
  }
  return job.phase;
}

namespace {

// The job's run is whole again: every live task holds a node and none is being evicted, and the
// tasks created since the run's first eviction (its requeued members) hold at least what was
// taken, so a victim that is deleted but not yet re-created does not count as back.
bool Whole(const Snapshot& snap, const Job& job) {
  ResourceVector back;
  for (TaskIdx ti : job.tasks) {
    const Task& t = snap.tasks[ti];
    if (t.status == TaskStatus::kSucceeded || t.status == TaskStatus::kFailed) continue;
    if (!HoldsNode(t.status) || t.status == TaskStatus::kReleasing) return false;
    if (t.creation_ms >= job.evicted_since_ms) back += t.request;
  }
  return job.evicted_in_run.LessEqual(back);
}

}  // namespace

Decision SessionOutcomes::Finish(const Snapshot& snap, const BackoffPolicy& backoff,
                                 const std::vector<ResourceVector>& evicted) {
  for (size_t ji = 0; ji < snap.jobs.size(); ++ji) {
    const Job& job = snap.jobs[ji];
    JobOutcome& out = job_outcomes_[ji];
    JobUpdate u;
    u.job = static_cast<JobIdx>(ji);
    u.job_uid = job.uid;
    u.phase = DerivePhase(snap, static_cast<JobIdx>(ji));
    u.phase_changed = u.phase != out.original_phase;
    u.backoff = job.backoff;
    bool changed = u.phase_changed;
    // What the run lost so far: nothing when never evicted, cleared (left zero) once whole again.
    if (!evicted[ji].IsZero() || (!job.evicted_in_run.IsZero() && !Whole(snap, job))) {
      u.evicted_in_run = job.evicted_in_run + evicted[ji];
      u.evicted_since_ms = job.evicted_in_run.IsZero() ? snap.now_ms : job.evicted_since_ms;
    }
    if (!(u.evicted_in_run == job.evicted_in_run) || u.evicted_since_ms != job.evicted_since_ms) {
      u.evicted_in_run_changed = true;
      changed = true;
    }
    if (out.attempted && out.placed) {
      u.condition = "Scheduled";
      u.backoff = Backoff{};
      changed = true;
    } else if (out.attempted || !out.reason.empty()) {
      u.condition = "Unschedulable";
      u.reason = out.reason.empty() ? "Unschedulable" : out.reason;
      u.message = out.message;
      if (out.attempted) {
        u.backoff = backoff.AfterFailure(job.backoff, snap.now_ms, snap.capacity_generation);
      }
      changed = true;
    }
    if (changed) decision_.jobs.push_back(std::move(u));
  }
  decision_.reservations = reservations_set_ ? next_reservations_ : snap.reservations;
  return std::move(decision_);
}

}  // namespace etna::sched
