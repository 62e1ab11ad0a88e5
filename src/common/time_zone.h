// TimeZone: an IANA time zone ("Europe/Berlin", "UTC") read from its TZif file, for turning a
// UTC instant into local wall-clock time. GCC 12's library has no std::chrono tzdb, so this
// reads the compiled zone files of the system's tzdata (/usr/share/zoneinfo, or $TZDIR) itself:
// the transition table (RFC 8536, version 2+ 64-bit data) and, past its last transition, the
// footer's POSIX TZ rule ("CET-1CEST,M3.5.0,M10.5.0/3"). Each TimeZone is a value of its own,
// so one process can hold several zones at once (tests do; localtime_r cannot).
//
// Thread-safety: immutable after Load; safe to share between threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace etna {

// Local wall-clock time of one instant in one zone.
struct LocalTime {
  int year = 1970, month = 1, day = 1;  // civil date
  int weekday = 4;                      // ISO: 1 = Monday .. 7 = Sunday
  int hour = 0, minute = 0, second = 0;
  int32_t offset_seconds = 0;  // local - UTC
};

class TimeZone {
 public:
  // Coordinated Universal Time, needing no file.
  static TimeZone Utc();
  // The IANA zone `name` ("Europe/Berlin", "UTC", "America/New_York"). An unknown name, one
  // that is not a plain relative path, or a file that is not TZif is an error naming it.
  static Result<TimeZone> Load(std::string_view name);
  // The host's zone: $TZ when it names a known zone, else /etc/localtime (named by the zone it
  // links to), else /etc/timezone, else UTC.
  static Result<TimeZone> Host();

  const std::string& name() const { return name_; }
  int32_t OffsetSeconds(TimeMs utc_ms) const;
  LocalTime ToLocal(TimeMs utc_ms) const;
  // The first instant after `utc_ms` at which the offset changes; nullopt when it never does.
  std::optional<TimeMs> NextOffsetChange(TimeMs utc_ms) const;
  // "2026-12-07T09:00:00+01:00": RFC 3339 with this zone's offset, whole seconds.
  std::string FormatRfc3339(TimeMs utc_ms) const;
  // "Mon 09:00": the local weekday and time, for messages about the coming week.
  std::string FormatWeekdayTime(TimeMs utc_ms) const;

  // A POSIX TZ rule's daylight-saving part (only the Mm.w.d form the tzdata footers use).
  struct Rule {
    int month = 0, week = 0, weekday = 0;  // Mm.w.d: d 0 = Sunday, w 5 = the last
    int32_t time_seconds = 7200;           // local time of day of the change (may be < 0 or > 24h)
  };

 private:
  struct Transition {
    int64_t at_s;    // UTC seconds
    int32_t offset;  // offset in force from at_s on
  };
  // Transitions of the footer rule in the years around `utc_s`, sorted.
  std::vector<Transition> RuleTransitions(int64_t utc_s) const;

  std::string name_;
  std::vector<Transition> transitions_;
  int32_t initial_offset_ = 0;  // before the first transition
  // The footer rule, for instants after the last transition.
  bool has_footer_ = false;
  int32_t std_offset_ = 0, dst_offset_ = 0;
  bool has_dst_ = false;
  Rule dst_start_, dst_end_;

  friend Status ParseTzif(const std::string& bytes, TimeZone* zone);
  friend Status ParsePosixTz(std::string_view text, TimeZone* zone);
};

}  // namespace etna
