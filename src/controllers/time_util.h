// RFC 3339 timestamps as the API writes them ("2026-01-02T03:04:05Z", optionally with fractional
// seconds) and Go durations as Volcano's policies give them ("10m", "1h30m", "500ms").
// Stateless functions.
#pragma once

#include <optional>
#include <string>

#include "common/clock.h"

namespace etna::controllers {

std::string FormatTime(TimeMs t);       // second precision, UTC, "Z"
std::string FormatMicroTime(TimeMs t);  // microsecond precision (Lease renewTime)
std::optional<TimeMs> ParseTime(const std::string& text);
std::optional<TimeMs> ParseDurationMs(const std::string& text);

}  // namespace etna::controllers
