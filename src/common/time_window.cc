// Queue timePolicies (time_window.h): parsing weekdays and hours, matching and the next opening.
#include "common/time_window.h"

#include <algorithm>
#include <cctype>

namespace etna {

namespace {

constexpr TimeMs kHourMs = 3'600'000;

// The items of a comma list, spaces removed; nullopt on an empty item.
std::optional<std::vector<std::string>> Items(std::string_view text) {
  std::vector<std::string> out;
  std::string item;
  auto flush = [&] {
    if (item.empty()) return false;
    out.push_back(item);
    item.clear();
    return true;
  };
  for (char c : text) {
    if (c == ' ') continue;
    if (c == ',') {
      if (!flush()) return std::nullopt;
    } else {
      item += c;
    }
  }
  if (!flush()) return std::nullopt;
  return out;
}

std::optional<int> Number(std::string_view t, int lo, int hi) {
  if (t.empty() || t.size() > 2 || !std::all_of(t.begin(), t.end(), ::isdigit)) return std::nullopt;
  int v = 0;
  for (char c : t) v = v * 10 + (c - '0');
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

// "a-b" (or just "a" when `single` is allowed): the two ends, checked against lo..hi.
std::optional<std::pair<int, int>> Range(const std::string& item, int lo, int hi, bool single) {
  size_t dash = item.find('-');
  if (dash == std::string::npos) {
    if (!single) return std::nullopt;
    auto a = Number(item, lo, hi);
    if (!a) return std::nullopt;
    return std::make_pair(*a, *a);
  }
  auto a = Number(std::string_view(item).substr(0, dash), lo, hi);
  auto b = Number(std::string_view(item).substr(dash + 1), lo, hi);
  if (!a || !b || *a == *b) return std::nullopt;
  return std::make_pair(*a, *b);
}

}  // namespace

Result<uint8_t> ParseWeekdays(std::string_view text) {
  const Status bad = Status::InvalidArgument(
      "must be days 1 (Monday) to 7 (Sunday) as a list of days or ranges, e.g. \"1-5\" or "
      "\"1,3,6-7\"");
  auto items = Items(text);
  if (!items) return bad;
  uint8_t days = 0;
  for (const std::string& item : *items) {
    auto r = Range(item, 1, 7, /*single=*/true);
    if (!r || r->first > r->second) return bad;
    for (int d = r->first; d <= r->second; ++d) days |= static_cast<uint8_t>(1u << (d - 1));
  }
  return days;
}

Result<uint32_t> ParseHours(std::string_view text) {
  const Status bad =
      Status::InvalidArgument("must be hour ranges between 0 and 24, e.g. \"9-18\" or \"22-6\"");
  auto items = Items(text);
  if (!items) return bad;
  uint32_t hours = 0;
  for (const std::string& item : *items) {
    auto r = Range(item, 0, 24, /*single=*/false);
    // A range starts before 24:00 and is not empty ("24-0", "9-9": leave hours out for all day).
    if (!r || r->first == 24 || r->first == r->second) return bad;
    auto set = [&](int from, int to) {  // [from, to)
      for (int h = from; h < to; ++h) hours |= 1u << h;
    };
    if (r->first < r->second) {
      set(r->first, r->second);
    } else {
      set(r->first, 24);
      set(0, r->second);
    }
  }
  return hours;
}

WindowState ResolveWindows(const std::vector<TimePolicy>& policies, const TimeZone& zone,
                           TimeMs now_ms) {
  auto open_at = [&](TimeMs t) {
    LocalTime local = zone.ToLocal(t);
    return std::any_of(policies.begin(), policies.end(),
                       [&](const TimePolicy& p) { return p.Matches(local); });
  };
  WindowState out;
  if (policies.empty() || open_at(now_ms)) return out;
  out.open = false;
  // Whether a policy matches changes only where the local hour does: at a local hour start or
  // at an offset change. Step through those for two weeks (DST may skip an hour once a week).
  TimeMs t = now_ms;
  for (int step = 0; step < 15 * 24 + 8; ++step) {
    TimeMs local_ms = t + static_cast<TimeMs>(zone.OffsetSeconds(t)) * 1000;
    TimeMs into_hour = ((local_ms % kHourMs) + kHourMs) % kHourMs;
    TimeMs next = t + (kHourMs - into_hour);
    if (auto change = zone.NextOffsetChange(t); change && *change < next) next = *change;
    t = next;
    if (open_at(t)) {
      out.next_open_ms = t;
      return out;
    }
  }
  return out;
}

}  // namespace etna
