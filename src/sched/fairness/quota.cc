#include "sched/fairness/quota.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace etna::sched::fairness {

ResourceVector RealCapability(const ResourceVector& total, const ResourceVector& total_guarantee,
                              const ResourceLimit& guarantee, const ResourceLimit& capability) {
  ResourceVector real = (total - total_guarantee).ClampedAtZero() + guarantee.value();
  ResourceVector out;
  for (int d = 0; d < kMaxResources; ++d) {
    int64_t v = real.Get(d);
    if (capability.Has(d)) v = std::min(v, capability.value().Get(d));
    if (v != 0) out.Set(d, v);
  }
  return out;
}

namespace {

// One dimension of WaterFill.
void FillDimension(int d, int64_t total, const std::vector<WaterFillQueue>& queues,
                   std::vector<ResourceVector>& deserved) {
  size_t n = queues.size();
  std::vector<int64_t> value(n, 0);
  std::vector<bool> met(n, false);
  int64_t remaining = total;
  while (remaining > 0) {
    int64_t weights = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!met[i]) weights += std::max<int32_t>(1, queues[i].weight);
    }
    if (weights == 0) break;
    int64_t handed = 0;
    for (size_t i = 0; i < n; ++i) {
      if (met[i]) continue;
      const WaterFillQueue& q = queues[i];
      int64_t add = static_cast<int64_t>(static_cast<__int128>(remaining) *
                                         std::max<int32_t>(1, q.weight) / weights);
      int64_t clamp = std::min(q.real_capability.Get(d), q.request.Get(d));
      int64_t v = std::max(std::min(value[i] + add, clamp), q.guarantee.Get(d));
      if (v >= clamp) met[i] = true;
      handed += v - value[i];
      value[i] = v;
    }
    if (handed == 0) break;
    remaining -= handed;
  }
  for (size_t i = 0; i < n; ++i) {
    if (value[i] != 0) deserved[i].Set(d, value[i]);
  }
}

}  // namespace

std::vector<ResourceVector> WaterFill(const ResourceVector& total,
                                      const std::vector<WaterFillQueue>& queues) {
  std::vector<ResourceVector> deserved(queues.size());
  for (int d = 0; d < total.dims(); ++d) FillDimension(d, total.Get(d), queues, deserved);
  // Guarantees of resources the cluster lacks still count.
  for (size_t i = 0; i < queues.size(); ++i) deserved[i] = deserved[i].Max(queues[i].guarantee);
  return deserved;
}

uint32_t ExceedOnRequest(const ResourceVector& used, const ResourceVector& request,
                         const ResourceVector& limit) {
  uint32_t mask = 0;
  for (int d = 0; d < request.dims(); ++d) {
    if (request.Get(d) > 0 && used.Get(d) + request.Get(d) > limit.Get(d)) mask |= 1u << d;
  }
  return mask;
}

uint32_t ExceedOnRequest(const ResourceVector& used, const ResourceVector& request,
                         const ResourceLimit& limit) {
  return ExceedOnRequest(used, request, limit.ClampToLimit(used + request)) & limit.mask();
}

std::string DescribeExceed(std::string_view queue, std::string_view what, std::string_view label,
                           uint32_t mask, const ResourceVector& used, const ResourceVector& request,
                           const ResourceVector& limit) {
  int d = 0;
  while (d < kMaxResources && !(mask & (1u << d))) ++d;
  if (d == kMaxResources) return fmt::format("queue {}: within its {}", queue, what);
  return fmt::format("queue {}: {} would exceed {} (allocated {}, request {}, {} {})", queue,
                     ResourceNames::Global().Name(d), what, FormatQuantity(d, used.Get(d)),
                     FormatQuantity(d, request.Get(d)), label, FormatQuantity(d, limit.Get(d)));
}

bool CanGiveUp(const ResourceVector& allocated, const ResourceLimit& deserved,
               const ResourceVector& victim) {
  for (int d = 0; d < victim.dims(); ++d) {
    if (victim.Get(d) <= 0 || !deserved.Has(d)) continue;
    if (allocated.Get(d) - victim.Get(d) >= deserved.value().Get(d)) return true;
  }
  return false;
}

std::vector<sched::TaskIdx> ReclaimableVictims(
    const sched::Session& s, const std::vector<sched::TaskIdx>& candidates,
    const std::function<ResourceVector(sched::QueueIdx)>& allocation,
    const std::function<ResourceLimit(sched::QueueIdx)>& deserved) {
  std::map<sched::QueueIdx, ResourceVector> left;  // allocation after the victims so far
  std::vector<sched::TaskIdx> allowed;
  for (sched::TaskIdx ti : candidates) {
    const sched::Task& v = s.task(ti);
    if (v.job == sched::kNone || s.job(v.job).queue == sched::kNone) continue;
    sched::QueueIdx q = s.job(v.job).queue;
    if (!s.queue(q).reclaimable) continue;
    auto it = left.find(q);
    if (it == left.end()) it = left.emplace(q, allocation(q)).first;
    if (!CanGiveUp(it->second, deserved(q), v.request)) continue;
    it->second -= v.request;
    allowed.push_back(ti);
  }
  return allowed;
}

}  // namespace etna::sched::fairness
