// Timestamps as the Kubernetes API writes them. Pure; thread-safe.
#pragma once

#include <fmt/format.h>

#include <ctime>
#include <string>

#include "common/clock.h"

namespace etna::agent {

// "2026-11-29T17:40:00Z", or with microseconds "2026-11-29T17:40:00.123000Z".
inline std::string FormatRfc3339(TimeMs ms, bool micro = false) {
  time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm {};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!micro) return fmt::format("{}Z", buf);
  return fmt::format("{}.{:06d}Z", buf, static_cast<int>(ms % 1000) * 1000);
}

}  // namespace etna::agent
