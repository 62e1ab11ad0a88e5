#include "sched/model/usage.h"

#include <algorithm>
#include <cmath>

namespace etna::sched {

double MeanLifeSeconds(TimeMs half_life_ms) {
  return static_cast<double>(half_life_ms) / 1000.0 / std::log(2.0);
}

namespace {

// Fixed-point units per unit of resource d (1,000 for milli-CPU and milli-GPU).
double PerUnit(ResourceId d) {
  return ResourceNames::Global().Unit(d) == ResourceUnit::kMilli ? 1000.0 : 1.0;
}

}  // namespace

double DecayedUsage::UnitSeconds(ResourceId d) const { return v_[d] / PerUnit(d); }

void DecayedUsage::SetUnitSeconds(ResourceId d, double value) { v_[d] = value * PerUnit(d); }

bool DecayedUsage::IsZero() const {
  return std::all_of(v_.begin(), v_.end(), [](double x) { return x == 0; });
}

void DecayedUsage::Accrue(const ResourceVector& held, TimeMs dt_ms, TimeMs half_life_ms) {
  if (dt_ms <= 0 || half_life_ms <= 0) return;
  const double keep = std::exp2(-static_cast<double>(dt_ms) / static_cast<double>(half_life_ms));
  const double gained = MeanLifeSeconds(half_life_ms) * (1.0 - keep);
  for (int d = 0; d < kMaxResources; ++d) {
    double held_d = d < held.dims() ? static_cast<double>(held.Get(static_cast<ResourceId>(d))) : 0;
    v_[d] = v_[d] * keep + held_d * gained;
  }
}

DecayedUsage& DecayedUsage::operator+=(const DecayedUsage& o) {
  for (int d = 0; d < kMaxResources; ++d) v_[d] += o.v_[d];
  return *this;
}

double DecayedUsage::Normalized(const ResourceVector& capacity, TimeMs half_life_ms) const {
  const double tau = MeanLifeSeconds(half_life_ms);
  double most = 0;
  for (int d = 0; d < capacity.dims(); ++d) {
    if (d == kPods || capacity.Get(static_cast<ResourceId>(d)) <= 0) continue;
    most = std::max(most,
                    v_[d] / (static_cast<double>(capacity.Get(static_cast<ResourceId>(d))) * tau));
  }
  return most;
}

}  // namespace etna::sched
