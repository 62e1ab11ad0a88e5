// DecayedUsage: what a queue held over time, each moment weighted by 2^(−age / half-life), per
// resource dimension, in the dimension's units times seconds (milli-CPU·s, byte·s, milli-GPU·s).
// The fair-share plugins read it from the snapshot (Queue::usage); the scheduler daemon and the
// simulator keep it up to date with Accrue, so the core stays pure.
//
// Accrue(A, Δ) is exact for an allocation A held constant over Δ:
//   U ← U·2^(−Δ/T) + A·τ·(1 − 2^(−Δ/T)),   τ = T / ln 2 (the mean life),
// so Δ = T with nothing held halves U exactly, and a queue that always holds A tends to A·τ.
// Plain value type; thread-safe for const use.
#pragma once

#include <array>

#include "common/clock.h"
#include "common/resource.h"

namespace etna::sched {

// Seven days: Slurm's PriorityDecayHalfLife default.
inline constexpr TimeMs kDefaultUsageHalfLifeMs = 7LL * 24 * 3600 * 1000;

// τ = T / ln 2 in seconds: the resource-seconds per unit held forever, the normalizing window.
double MeanLifeSeconds(TimeMs half_life_ms);

class DecayedUsage {
 public:
  double Get(ResourceId d) const { return v_[d]; }
  void Set(ResourceId d, double value) { v_[d] = value; }
  // The same in the resource's own unit times seconds: GPU-seconds, core-seconds, byte-seconds.
  double UnitSeconds(ResourceId d) const;
  void SetUnitSeconds(ResourceId d, double value);
  bool IsZero() const;

  // Ages the usage by `dt_ms` during which `held` was held throughout (dt ≤ 0: unchanged).
  void Accrue(const ResourceVector& held, TimeMs dt_ms, TimeMs half_life_ms);
  DecayedUsage& operator+=(const DecayedUsage& o);

  // The share of the cluster held, averaged with the decay: max over the dimensions with a
  // positive capacity (the pod count excluded) of U / (capacity · τ). 1: held all of it always.
  double Normalized(const ResourceVector& capacity, TimeMs half_life_ms) const;

 private:
  std::array<double, kMaxResources> v_{};
};

}  // namespace etna::sched
