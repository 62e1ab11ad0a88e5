// ClockStepDetector: how far a wall clock stepped, measured against a monotonic one.
#pragma once

#include "common/clock.h"

namespace etna {

// Notices steps of a wall clock (an NTP step, an operator's `date -s`, a VM resumed) by
// comparing how far it moved with how far a monotonic clock moved since the last look. A holder
// of wall-clock deadlines moves them by the step, so a grace period, a back-off or a probe
// period lasts what it says whichever way the clock jumps, while the times it reports stay
// wall-clock times. Drift below the threshold is not a step. Not thread-safe (one owner).
class ClockStepDetector {
 public:
  ClockStepDetector(const Clock* wall, const Clock* monotonic, TimeMs threshold_ms = 1000)
      : wall_(wall),
        monotonic_(monotonic),
        threshold_ms_(threshold_ms),
        last_wall_(wall->NowMs()),
        last_monotonic_(monotonic->NowMs()) {}

  // The wall clock's step since the last call (positive: forward), or 0 under the threshold.
  TimeMs Step() {
    const TimeMs wall = wall_->NowMs();
    const TimeMs monotonic = monotonic_->NowMs();
    const TimeMs step = (wall - last_wall_) - (monotonic - last_monotonic_);
    last_wall_ = wall;
    last_monotonic_ = monotonic;
    return step >= threshold_ms_ || step <= -threshold_ms_ ? step : 0;
  }

 private:
  const Clock* wall_;
  const Clock* monotonic_;
  TimeMs threshold_ms_;
  TimeMs last_wall_;
  TimeMs last_monotonic_;
};

// Whether something read or done at wall time `at` is `max_age_ms` old at `now`, counting a
// time ahead of `now` (the clock stepped back since) as old: a cache or a back-off keyed on a
// wall-clock reading then ends now, not an hour later.
inline bool AgedOut(TimeMs now, TimeMs at, TimeMs max_age_ms) {
  return now < at || now - at >= max_age_ms;
}

}  // namespace etna
