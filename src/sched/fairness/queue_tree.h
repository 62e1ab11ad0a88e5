// QueueTree: queues as a tree through Queue::parent (kNone = child of the implicit root), with
// the resources allocated in each queue's subtree kept up to date by the caller (Add/Sub along
// the ancestor chain). Used by hierarchical DRF and hierarchical capacity. A parent index out of
// range or a cycle makes the queue a child of the root. Flat mode ignores parents.
//
// Thread-safety: none; one per plugin per session.
#pragma once

#include <functional>
#include <vector>

#include "common/resource.h"
#include "sched/model/snapshot.h"

namespace etna::sched::fairness {

class QueueTree {
 public:
  QueueTree(const std::vector<Queue>& queues, bool use_parents);

  // Root-most ancestor first, ending with q.
  const std::vector<QueueIdx>& Path(QueueIdx q) const { return paths_[q]; }
  QueueIdx Parent(QueueIdx q) const { return parent_[q]; }
  // Queues ordered parents before children.
  const std::vector<QueueIdx>& TopDown() const { return top_down_; }
  // Resources allocated in q and its descendants.
  const ResourceVector& Subtree(QueueIdx q) const { return subtree_[q]; }
  // Adds to (or subtracts from) q and each of its ancestors.
  void Add(QueueIdx q, const ResourceVector& r);
  void Sub(QueueIdx q, const ResourceVector& r);

  // Compares l and r at the first level where their ancestor chains differ, with `cmp` on those
  // two ancestors (siblings); 0 when one is an ancestor of the other.
  int Compare(QueueIdx l, QueueIdx r, const std::function<int(QueueIdx, QueueIdx)>& cmp) const;

 private:
  std::vector<QueueIdx> parent_;
  std::vector<std::vector<QueueIdx>> paths_;
  std::vector<QueueIdx> top_down_;
  std::vector<ResourceVector> subtree_;
};

}  // namespace etna::sched::fairness
