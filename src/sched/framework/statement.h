// Statement: a transaction over tentative scheduling operations (allocate, pipeline, evict).
//
// Each operation changes the session at once (so later decisions in the same cycle see it) and
// is logged. Commit() turns the log into decisions (binds, nominations, evictions); Discard()
// undoes the operations in reverse order. A statement that is destroyed uncommitted discards
// itself, so a partial gang never outlives its attempt. Merge() appends another statement's
// operations, so a per-node trial can be kept only when the whole job succeeds.
//
// Statement is the only writer of the session's placements: SessionAccounting's mutation
// primitives and SessionOutcomes' record of committed operations are private to it.
//
// Thread-safety: none; belongs to the session's thread.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "sched/framework/session.h"

namespace etna::sched {

class Statement {
 public:
  explicit Statement(Session& session) : session_(session) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds `task` to `node` now, on devices chosen by the session. Fails (changing nothing)
  // when the task is not pending or the node's idle resources cannot hold it.
  Status Allocate(TaskIdx task, NodeIdx node);
  // Places `task` on `node` to start once releasing resources are gone.
  Status Pipeline(TaskIdx task, NodeIdx node);
  // Evicts a running task; `reason` is the condition reason ("Preempted", "Reclaimed").
  Status Evict(TaskIdx task, std::string reason, std::string message,
               std::string preemptor_job_uid);

  void Commit();
  void Discard();
  // Moves `other`'s operations into this statement (other becomes empty).
  void Merge(Statement& other);

  bool empty() const { return ops_.empty(); }
  size_t size() const { return ops_.size(); }

 private:
  struct Op {
    OpKind kind;
    TaskIdx task;
    TaskStatus prev_status;  // for evictions
    std::string reason;
    std::string message;
    std::string preemptor;
  };
  Session& session_;
  std::vector<Op> ops_;
};

}  // namespace etna::sched
