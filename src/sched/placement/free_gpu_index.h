// FreeGpuIndex: schedulable nodes bucketed by their number of free whole GPUs, so that a fit
// query for a task that needs g GPUs visits only nodes with at least g free and never scans the
// whole cluster. Updates are O(1). Iteration order inside a bucket depends only on the sequence
// of updates, so it is deterministic for a given snapshot.
//
// Thread-safety: none; owned by one Session.
#pragma once

#include <cstdint>
#include <vector>

namespace etna::sched {

class FreeGpuIndex {
 public:
  void Reset(int num_nodes);
  // Moves node `n` to the bucket of `free_gpus`, or removes it when not schedulable.
  void Update(int32_t n, int free_gpus, bool schedulable);
  int free_gpus(int32_t n) const { return pos_[n].bucket; }

  // Visits nodes with at least `min_free` free GPUs: tightest buckets first when
  // `tightest_first`, else emptiest first. `fn(node)` returns false to stop.
  template <typename Fn>
  void ForEach(int min_free, bool tightest_first, Fn&& fn) const {
    if (min_free < 0) min_free = 0;
    int hi = static_cast<int>(buckets_.size()) - 1;
    if (tightest_first) {
      for (int b = min_free; b <= hi; ++b) {
        for (int32_t n : buckets_[b]) {
          if (!fn(n)) return;
        }
      }
    } else {
      for (int b = hi; b >= min_free; --b) {
        for (int32_t n : buckets_[b]) {
          if (!fn(n)) return;
        }
      }
    }
  }
  // Number of indexed nodes with at least `min_free` free GPUs.
  int CountAtLeast(int min_free) const;

 private:
  struct Pos {
    int bucket = -1;  // -1: not indexed
    int32_t slot = 0;
  };
  void Remove(int32_t n);
  std::vector<std::vector<int32_t>> buckets_;
  std::vector<Pos> pos_;
};

}  // namespace etna::sched
