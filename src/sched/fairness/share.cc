#include "sched/fairness/share.h"

namespace etna::sched::fairness {

int CompareShares(const Share& a, const Share& b, int64_t wa, int64_t wb) {
  __int128 l = static_cast<__int128>(a.num) * b.den * wb;
  __int128 r = static_cast<__int128>(b.num) * a.den * wa;
  return l < r ? -1 : (l > r ? 1 : 0);
}

Share DominantShare(const ResourceVector& used, const ResourceVector& total) {
  Share best;
  for (int d = 0; d < total.dims(); ++d) {
    if (total.Get(d) <= 0) continue;
    Share s{std::max<int64_t>(0, used.Get(d)), total.Get(d)};
    if (CompareShares(s, best) > 0) best = s;
  }
  return best;
}

Share ShareOfLimit(const ResourceVector& used, const ResourceLimit& limit) {
  Share best;
  for (int d = 0; d < kMaxResources; ++d) {
    if (!limit.Has(d)) continue;
    int64_t u = std::max<int64_t>(0, used.Get(d));
    int64_t l = limit.value().Get(d);
    Share s = l > 0 ? Share{u, l} : Share{u > 0 ? 1 : 0, 1};
    if (CompareShares(s, best) > 0) best = s;
  }
  return best;
}

ResourceLimit FullLimit(const ResourceVector& v) {
  ResourceLimit l;
  for (int d = 0; d < kMaxResources; ++d) l.Set(d, v.Get(d));
  return l;
}

}  // namespace etna::sched::fairness
