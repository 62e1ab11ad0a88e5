#include "sched/actions/queue_job_order.h"

#include <algorithm>

namespace etna::sched {

void QueueJobOrder::Build() {
  auto after = [this](JobIdx a, JobIdx b) { return After(a, b); };
  for (auto& heap : per_queue_) std::make_heap(heap.begin(), heap.end(), after);
}

QueueIdx QueueJobOrder::NextQueue() const {
  QueueIdx q = kNone;
  for (QueueIdx i = 0; i < static_cast<QueueIdx>(per_queue_.size()); ++i) {
    if (per_queue_[i].empty()) continue;
    if (q == kNone || s_.CompareQueues(s_.queue(i), s_.queue(q)) < 0) q = i;
  }
  return q;
}

JobIdx QueueJobOrder::PopJob(QueueIdx q) {
  auto& heap = per_queue_[q];
  std::pop_heap(heap.begin(), heap.end(), [this](JobIdx a, JobIdx b) { return After(a, b); });
  JobIdx j = heap.back();
  heap.pop_back();
  return j;
}

void QueueJobOrder::Push(JobIdx j) {
  auto& heap = per_queue_[s_.job(j).queue];
  heap.push_back(j);
  std::push_heap(heap.begin(), heap.end(), [this](JobIdx a, JobIdx b) { return After(a, b); });
}

}  // namespace etna::sched
