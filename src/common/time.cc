#include "common/time.h"

#include <fmt/format.h>

#include <cstdint>
#include <ctime>

namespace etna {

namespace {

constexpr uint64_t kMaxMagnitude = uint64_t{1} << 63;  // |INT64_MIN|

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

Status NotADuration(std::string_view text) {
  return Status::InvalidArgument(
      fmt::format("\"{}\" is not a duration (want e.g. 300ms, 1.5h or 2h45m)", text));
}

// Nanoseconds per unit; 0 for an unknown unit.
uint64_t UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  if (unit == "m") return 60'000'000'000;
  if (unit == "h") return 3'600'000'000'000;
  return 0;
}

// Reads leading digits of `s` into `value`; false on overflow. Advances `s`.
bool LeadingInt(std::string_view& s, uint64_t& value) {
  size_t i = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (value > kMaxMagnitude / 10) return false;
    value = value * 10 + static_cast<uint64_t>(s[i] - '0');
    if (value > kMaxMagnitude) return false;
  }
  s.remove_prefix(i);
  return true;
}

// Reads the digits after a '.' into `value` / `scale`; digits past int64 precision are dropped.
void LeadingFraction(std::string_view& s, uint64_t& value, double& scale) {
  size_t i = 0;
  bool overflow = false;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (overflow) continue;
    if (value > (kMaxMagnitude - 1) / 10) {
      overflow = true;
      continue;
    }
    value = value * 10 + static_cast<uint64_t>(s[i] - '0');
    scale *= 10;
  }
  s.remove_prefix(i);
}

// Reads exactly `n` digits at `pos`; advances `pos`.
std::optional<int> Digits(std::string_view s, size_t& pos, size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!IsDigit(s[pos + i])) return std::nullopt;
    value = value * 10 + (s[pos + i] - '0');
  }
  pos += n;
  return value;
}

bool Expect(std::string_view s, size_t& pos, char a, char b) {
  if (pos >= s.size() || (s[pos] != a && s[pos] != b)) return false;
  ++pos;
  return true;
}

std::tm Utc(TimeMs ms) {
  std::time_t seconds = static_cast<std::time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  return tm;
}

}  // namespace

Result<std::chrono::nanoseconds> ParseGoDuration(std::string_view text) {
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return NotADuration(text);
  uint64_t total = 0;
  while (!s.empty()) {
    if (s[0] != '.' && !IsDigit(s[0])) return NotADuration(text);
    uint64_t whole = 0;
    size_t before = s.size();
    if (!LeadingInt(s, whole)) return NotADuration(text);
    bool has_whole = s.size() != before;
    uint64_t fraction = 0;
    double scale = 1;
    bool has_fraction = false;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      before = s.size();
      LeadingFraction(s, fraction, scale);
      has_fraction = s.size() != before;
    }
    if (!has_whole && !has_fraction) return NotADuration(text);
    size_t unit_end = 0;
    while (unit_end < s.size() && s[unit_end] != '.' && !IsDigit(s[unit_end])) ++unit_end;
    uint64_t unit = UnitNanos(s.substr(0, unit_end));
    if (unit == 0) return NotADuration(text);  // missing or unknown unit
    s.remove_prefix(unit_end);
    if (whole > kMaxMagnitude / unit) return NotADuration(text);
    whole *= unit;
    if (fraction > 0) {
      whole += static_cast<uint64_t>(static_cast<double>(fraction) *
                                     (static_cast<double>(unit) / scale));
      if (whole > kMaxMagnitude) return NotADuration(text);
    }
    total += whole;
    if (total > kMaxMagnitude) return NotADuration(text);
  }
  if (negative) return std::chrono::nanoseconds(static_cast<int64_t>(0 - total));
  if (total > kMaxMagnitude - 1) return NotADuration(text);
  return std::chrono::nanoseconds(static_cast<int64_t>(total));
}

Result<std::chrono::nanoseconds> ParseDurationOrSeconds(std::string_view text) {
  bool bare_number = !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos;
  auto d = ParseGoDuration(bare_number ? std::string(text) + "s" : std::string(text));
  if (!d.ok()) {
    return Status::InvalidArgument(fmt::format(
        "\"{}\" is not a duration (want e.g. 300ms, 1.5h, 2h45m or a number of seconds)", text));
  }
  return d;
}

int64_t CeilMilliseconds(std::chrono::nanoseconds d) {
  int64_t ns = d.count();
  int64_t ms = ns / 1'000'000;
  if (ns % 1'000'000 > 0) ++ms;
  if (ns % 1'000'000 < 0) --ms;
  return ms;
}

std::string FormatRfc3339(TimeMs ms) {
  std::tm tm = Utc(ms);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string FormatRfc3339Micro(TimeMs ms) {
  std::tm tm = Utc(ms);
  int64_t millis = ((ms % 1000) + 1000) % 1000;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, millis * 1000);
}

std::optional<TimeMs> ParseRfc3339(std::string_view s) {
  size_t pos = 0;
  auto year = Digits(s, pos, 4);
  if (!year || !Expect(s, pos, '-', '-')) return std::nullopt;
  auto month = Digits(s, pos, 2);
  if (!month || !Expect(s, pos, '-', '-')) return std::nullopt;
  auto day = Digits(s, pos, 2);
  if (!day || !Expect(s, pos, 'T', 't')) return std::nullopt;
  auto hour = Digits(s, pos, 2);
  if (!hour || !Expect(s, pos, ':', ':')) return std::nullopt;
  auto minute = Digits(s, pos, 2);
  if (!minute || !Expect(s, pos, ':', ':')) return std::nullopt;
  auto second = Digits(s, pos, 2);
  if (!second || *hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  int64_t millis = 0;
  if (pos < s.size() && s[pos] == '.') {
    size_t start = ++pos;
    for (; pos < s.size() && IsDigit(s[pos]); ++pos) {
      if (pos - start < 3) millis = millis * 10 + (s[pos] - '0');
    }
    if (pos == start) return std::nullopt;
    for (size_t n = pos - start; n < 3; ++n) millis *= 10;
  }
  int offset_minutes = 0;
  if (Expect(s, pos, 'Z', 'z')) {
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int sign = s[pos] == '-' ? -1 : 1;
    ++pos;
    auto oh = Digits(s, pos, 2);
    if (!oh || !Expect(s, pos, ':', ':')) return std::nullopt;
    auto om = Digits(s, pos, 2);
    if (!om || *oh > 23 || *om > 59) return std::nullopt;
    offset_minutes = sign * (*oh * 60 + *om);
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(*year),
                                        std::chrono::month(static_cast<unsigned>(*month)),
                                        std::chrono::day(static_cast<unsigned>(*day))};
  if (!ymd.ok()) return std::nullopt;
  int64_t days = std::chrono::sys_days(ymd).time_since_epoch().count();
  int64_t seconds = days * 86400 + *hour * 3600 + (*minute - offset_minutes) * 60LL + *second;
  return seconds * 1000 + millis;
}

}  // namespace etna
