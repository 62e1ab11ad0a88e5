// Exact resource shares for fair-share ordering (drf, proportion, capacity).
//
// A share is a fraction num/den of two resource amounts, compared exactly with 128-bit cross
// products, so ordering never depends on floating-point rounding. Plain values; thread-safe.
#pragma once

#include <cstdint>

#include "common/resource.h"

namespace etna::sched::fairness {

struct Share {
  int64_t num = 0;
  int64_t den = 1;  // > 0
  double ToDouble() const { return static_cast<double>(num) / static_cast<double>(den); }
};

// Compares a/wa with b/wb (weights > 0): < 0 when a/wa is the smaller.
int CompareShares(const Share& a, const Share& b, int64_t wa = 1, int64_t wb = 1);

// Dominant resource share: max over resources with a positive total of used/total; 0 when the
// total is empty.
Share DominantShare(const ResourceVector& used, const ResourceVector& total);

// max over the dimensions bounded by `limit` of used/limit, where a zero limit counts as a share
// of 1 when something is used and 0 otherwise (Volcano's helpers.Share).
Share ShareOfLimit(const ResourceVector& used, const ResourceLimit& limit);

// A limit that bounds every dimension with v's value.
ResourceLimit FullLimit(const ResourceVector& v);

}  // namespace etna::sched::fairness
