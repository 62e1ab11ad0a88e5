// Weekly time windows, as a Queue's spec.timePolicies write them: `weekdays: "1-5"` (ISO days,
// 1 = Monday .. 7 = Sunday, a comma list of days and ascending ranges) and `hours: "9-18"` (a
// comma list of hour ranges "a-b" between 0 and 24: from a:00 up to, not including, b:00; a
// range whose start is after its end wraps past midnight, "22-6" = 22:00..06:00). A policy
// without weekdays is every day; without hours, all day. A set of policies is open when any one
// matches the local weekday and hour of the instant (so "22-6" on "1-5" holds Monday 00:00-06:00
// and 22:00-24:00, each instant judged by its own local day). The one parser of both texts:
// admission validates with it and the scheduler resolves windows with it.
//
// Thread-safety: pure functions over their arguments.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"
#include "common/time_zone.h"

namespace etna {

struct TimePolicy {
  uint8_t weekdays = 0x7f;    // bit d-1 for ISO day d (Monday = bit 0)
  uint32_t hours = 0xffffff;  // bit h for the hour h:00..h:59
  bool Matches(const LocalTime& t) const {
    return (weekdays >> (t.weekday - 1) & 1) && (hours >> t.hour & 1);
  }
};

// Errors are the reason only ("must be days 1 (Monday) to 7 ..."); callers name the field.
Result<uint8_t> ParseWeekdays(std::string_view text);
Result<uint32_t> ParseHours(std::string_view text);

struct WindowState {
  bool open = true;
  // Closed: the first instant (a local hour start, or an offset change) at which a policy
  // matches; nullopt when none does in the coming two weeks (it never will).
  std::optional<TimeMs> next_open_ms;
};

// Where `now_ms` stands against `policies` in `zone`. No policies: always open.
WindowState ResolveWindows(const std::vector<TimePolicy>& policies, const TimeZone& zone,
                           TimeMs now_ms);

}  // namespace etna
