// Time text as Kubernetes and Volcano write it: Go durations ("300ms", "-1.5h", "2h45m") and
// RFC 3339 timestamps ("2006-01-02T15:04:05Z"). The one implementation of each grammar; callers
// that need a narrower one (a positive duration, whole milliseconds) check the parsed value.
// Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "common/status.h"

namespace etna {

// Go's time.ParseDuration exactly: an optional sign, then one or more decimal numbers (fractions
// allowed, "1.5", ".5", "1.") each followed by a unit: ns, us, µs, ms, s, m, h. "0" alone is
// allowed; "", "1" (no unit) and "1x" are not. Values past ±292 years overflow and are errors.
// Errors name the text; callers add the field ("spec.policies[0].timeout: ...").
Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text);

// ParseGoDuration, and also a bare number of seconds ("30", "1.5"), as etna's flags and plugin
// arguments have always taken them.
Result<std::chrono::nanoseconds> ParseDurationOrSeconds(std::string_view text);

// Whole milliseconds, rounded up (away from zero): a positive duration under 1 ms is 1 ms, never
// 0, so a "500us" timeout still fires (on the next millisecond tick) instead of being dropped.
int64_t CeilMilliseconds(std::chrono::nanoseconds d);

// "2006-01-02T15:04:05Z": RFC 3339 in UTC with whole seconds, as Kubernetes writes Time.
std::string FormatRfc3339(TimeMs ms);
// "2006-01-02T15:04:05.000000Z": with microseconds, as Kubernetes writes MicroTime (Lease
// renewTime). Milliseconds are exact; the last three digits are 0.
std::string FormatRfc3339Micro(TimeMs ms);
// Parses RFC 3339: "YYYY-MM-DDTHH:MM:SS", optional fractional seconds (any number of digits,
// truncated to milliseconds), then "Z" or "±hh:mm" ('T' and 'Z' may be lowercase). Dates and
// times are range-checked. nullopt when the text is anything else.
std::optional<TimeMs> ParseRfc3339(std::string_view text);

}  // namespace etna
