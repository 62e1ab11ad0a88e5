#include "sched/fairness/queue_tree.h"

#include <algorithm>

namespace etna::sched::fairness {

QueueTree::QueueTree(const std::vector<Queue>& queues, bool use_parents) {
  const auto n = static_cast<QueueIdx>(queues.size());
  parent_.assign(n, kNone);
  paths_.resize(n);
  subtree_.resize(n);
  if (use_parents) {
    for (QueueIdx q = 0; q < n; ++q) {
      QueueIdx p = queues[q].parent;
      if (p >= 0 && p < n && p != q) parent_[q] = p;
    }
  }
  for (QueueIdx q = 0; q < n; ++q) {
    std::vector<QueueIdx> up{q};
    for (QueueIdx p = parent_[q]; p != kNone; p = parent_[p]) {
      if (std::find(up.begin(), up.end(), p) != up.end()) {  // cycle: q hangs off the root
        parent_[q] = kNone;
        up = {q};
        break;
      }
      up.push_back(p);
    }
    paths_[q].assign(up.rbegin(), up.rend());
  }
  top_down_.resize(n);
  for (QueueIdx q = 0; q < n; ++q) top_down_[q] = q;
  std::stable_sort(top_down_.begin(), top_down_.end(),
                   [&](QueueIdx a, QueueIdx b) { return paths_[a].size() < paths_[b].size(); });
  for (QueueIdx q = 0; q < n; ++q) Add(q, queues[q].allocated);
}

void QueueTree::Add(QueueIdx q, const ResourceVector& r) {
  for (QueueIdx a : paths_[q]) subtree_[a] += r;
}

void QueueTree::Sub(QueueIdx q, const ResourceVector& r) {
  for (QueueIdx a : paths_[q]) subtree_[a] -= r;
}

int QueueTree::Compare(QueueIdx l, QueueIdx r,
                       const std::function<int(QueueIdx, QueueIdx)>& cmp) const {
  const auto& pl = paths_[l];
  const auto& pr = paths_[r];
  for (size_t i = 0; i < pl.size() && i < pr.size(); ++i) {
    if (pl[i] != pr[i]) return cmp(pl[i], pr[i]);
  }
  return 0;
}

}  // namespace etna::sched::fairness
