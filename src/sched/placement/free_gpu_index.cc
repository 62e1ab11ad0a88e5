#include "sched/placement/free_gpu_index.h"

namespace etna::sched {

void FreeGpuIndex::Reset(int num_nodes) {
  buckets_.clear();
  pos_.assign(num_nodes, Pos{});
}

void FreeGpuIndex::Remove(int32_t n) {
  Pos& p = pos_[n];
  if (p.bucket < 0) return;
  auto& bucket = buckets_[p.bucket];
  int32_t last = bucket.back();
  bucket[p.slot] = last;
  pos_[last].slot = p.slot;
  bucket.pop_back();
  p.bucket = -1;
}

void FreeGpuIndex::Update(int32_t n, int free_gpus, bool schedulable) {
  if (free_gpus < 0) free_gpus = 0;
  if (!schedulable) {
    Remove(n);
    return;
  }
  if (pos_[n].bucket == free_gpus) return;
  Remove(n);
  if (static_cast<int>(buckets_.size()) <= free_gpus) buckets_.resize(free_gpus + 1);
  pos_[n] = Pos{free_gpus, static_cast<int32_t>(buckets_[free_gpus].size())};
  buckets_[free_gpus].push_back(n);
}

int FreeGpuIndex::CountAtLeast(int min_free) const {
  int count = 0;
  for (int b = std::max(0, min_free); b < static_cast<int>(buckets_.size()); ++b) {
    count += static_cast<int>(buckets_[b].size());
  }
  return count;
}

}  // namespace etna::sched
