// CronSchedule: a cron schedule as Kubernetes' CronJob (and Volcano's) reads it — five fields
// (minute, hour, day of month, month, day of week) of numbers, names (JAN-DEC, SUN-SAT), `*`
// or `?`, lists, ranges and `/step`s, or one of @yearly, @annually, @monthly, @weekly, @daily,
// @midnight, @hourly — and the next time it fires in a time zone. When both day fields are
// restricted a day matching either fires (classic cron); when one is `*`, both must match.
// Thread-safety: immutable after Parse.
#pragma once

#include <bitset>
#include <optional>
#include <string_view>

#include "common/clock.h"
#include "common/status.h"
#include "common/time_zone.h"

namespace etna {

class CronSchedule {
 public:
  // An error names the field and the part that is wrong.
  static Result<CronSchedule> Parse(std::string_view text);
  // The first whole minute strictly after `after_ms` at which the schedule fires, read in
  // `zone`'s wall-clock time; nullopt when it never does within five years (30 February).
  std::optional<TimeMs> Next(TimeMs after_ms, const TimeZone& zone) const;

 private:
  bool DayMatches(const LocalTime& t) const;

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> days_;     // 1..31
  std::bitset<13> months_;   // 1..12
  std::bitset<7> weekdays_;  // 0 = Sunday
  bool days_star_ = false, weekdays_star_ = false;
};

}  // namespace etna
