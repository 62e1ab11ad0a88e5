// NoPlanMemo: the nodes known to hold no victim plan for a class of preemptor tasks, so that a
// victim search with thousands of preemptors does not plan every node again for each.
//
// A class is what the plugins' votes and the fit read of a preemptor task: its queue, its job's
// and its own priority and its request (tasks without placement constraints only). A node that
// held no plan for the class keeps holding none while it is unchanged, because within a cycle
// everything else the votes read only grows stricter: evictions take budget and spare members
// away, and a preemptor's own placed tasks raise its share. What is not node-local is the
// caller's to report: Touch() a node whose jobs grew (a committed preemptor's nodes),
// ForgetOtherQueues(q) when queue q's share grew (reclaim: q's work becomes easier to reclaim
// for other queues' preemptors, while q's own only find it harder), and record in kJob scope
// what holds only for the current job (its own earlier tasks are placed, or uncommitted
// evictions hold budget).
//
// When a pass found no plan anywhere, the next pass for the class visits only the nodes changed
// since (Pass::Nodes), so a run of like preemptors costs what changed, not the node count.
// Nodes holding a reservation admit some jobs and not others: they are never remembered.
// Nodes change through the session's change log, read anew by each Begin().
//
// Thread-safety: none; runs on the session's thread.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "sched/framework/session.h"

namespace etna::sched {

class NoPlanMemo {
 public:
  struct Class {
    QueueIdx queue;
    int32_t job_priority;
    int32_t task_priority;
    ResourceVector request;
    bool operator==(const Class& o) const {
      return queue == o.queue && job_priority == o.job_priority &&
             task_priority == o.task_priority && request == o.request;
    }
  };
  enum class Scope : uint8_t {
    kGlobal,  // until the node changes (or Touch, ForgetOtherQueues)
    kJob,     // also until ClearJob(): the current preemptor job's attempt
  };

  explicit NoPlanMemo(const Session& s);

  // The class of task `t`, or nullopt when the memo does not apply to it.
  static std::optional<Class> ClassOf(const Session& s, const Task& t);

  struct Entry {
    Class cls;
    std::vector<uint64_t> stamps;  // per node: when it was found to hold no plan; 0: never
    uint64_t complete_at = 0;      // when a pass last found no plan on any remembered node
  };

  // One pass over the nodes for one class (valid until the next Begin): what is known, read
  // from the job's entries and, when `use_global`, the global ones; failures are recorded in
  // `record` scope (none: not recorded) by Finish(), which comes after the trial evictions the
  // planning undid (they are in the change log too) and before any real one.
  class Pass {
   public:
    // The nodes to visit, in index order, or null: every node.
    const std::vector<NodeIdx>* Nodes() const { return restricted_ ? &nodes_ : nullptr; }
    bool Known(NodeIdx n) const;
    // Node `n` holds no plan; or it holds one.
    void Failed(NodeIdx n);
    void Found(NodeIdx n);
    void Finish();

   private:
    friend class NoPlanMemo;
    explicit Pass(NoPlanMemo& memo) : memo_(memo) {}
    NoPlanMemo& memo_;
    const Entry* job_ = nullptr;
    const Entry* global_ = nullptr;
    Entry* record_ = nullptr;
    std::vector<NodeIdx> failed_;
    bool found_ = false;  // a remembered node holds a plan
    bool restricted_ = false;
    std::vector<NodeIdx> nodes_;
  };
  Pass Begin(const Class& c, bool use_global, std::optional<Scope> record);

  void Touch(NodeIdx n);
  void ForgetOtherQueues(QueueIdx q);
  void ClearJob() { job_.clear(); }

 private:
  void Refresh();
  void Changed(NodeIdx n);
  bool Valid(const Entry* e, NodeIdx n) const {
    return e && e->stamps[n] != 0 && changed_at_[n] < e->stamps[n];
  }
  // Every node changed after `stamp`, and every unremembered one, in index order.
  std::vector<NodeIdx> ChangedSince(uint64_t stamp);

  const Session& s_;
  size_t log_pos_ = 0;
  uint64_t stamp_ = 0;
  std::vector<uint64_t> changed_at_;                   // stamp of each node's latest change
  std::vector<std::pair<uint64_t, NodeIdx>> changes_;  // every change, in stamp order
  std::vector<NodeIdx> unremembered_;                  // nodes holding a reservation
  std::vector<bool> remembered_;                       // the others
  std::vector<uint64_t> visit_mark_;                   // dedup for ChangedSince
  std::vector<Entry> global_;
  std::vector<Entry> job_;
};

}  // namespace etna::sched
