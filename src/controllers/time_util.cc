#include "controllers/time_util.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdio>
#include <ctime>

namespace etna::controllers {

namespace {

std::tm Utc(TimeMs t) {
  std::time_t secs = static_cast<std::time_t>(t / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return tm;
}

}  // namespace

std::string FormatTime(TimeMs t) {
  std::tm tm = Utc(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

std::string FormatMicroTime(TimeMs t) {
  std::tm tm = Utc(t);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (t % 1000) * 1000);
}

std::optional<TimeMs> ParseTime(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                  &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  TimeMs ms = static_cast<TimeMs>(timegm(&tm)) * 1000;
  size_t i = static_cast<size_t>(consumed);
  if (i < text.size() && text[i] == '.') {
    int64_t scale = 100;
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      ms += (text[i] - '0') * scale;
      scale /= 10;
    }
  }
  if (i < text.size() && (text[i] == '+' || text[i] == '-') && i + 5 < text.size() + 1) {
    int hh = 0, mm = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d", &hh, &mm) == 2) {
      TimeMs off = (hh * 3600 + mm * 60) * 1000LL;
      ms += text[i] == '+' ? -off : off;
    }
  }
  return ms;
}

std::optional<TimeMs> ParseDurationMs(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    if (start == i) return std::nullopt;
    double v = std::atof(text.substr(start, i - start).c_str());
    std::string unit;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) unit += text[i++];
    if (unit == "h") {
      total += v * 3600000;
    } else if (unit == "m") {
      total += v * 60000;
    } else if (unit == "s") {
      total += v * 1000;
    } else if (unit == "ms") {
      total += v;
    } else {
      return std::nullopt;
    }
  }
  return static_cast<TimeMs>(total);
}

}  // namespace etna::controllers
