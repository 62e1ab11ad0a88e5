#include "common/cron.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <string>
#include <vector>

namespace etna {

namespace {

struct FieldSpec {
  const char* name;
  int low, high;
  std::array<const char*, 12> names;  // names[i] is value low + i (months) or i (weekdays)
  int name_base;
};

constexpr FieldSpec kFields[5] = {
    {"minute", 0, 59, {}, 0},
    {"hour", 0, 23, {}, 0},
    {"day of month", 1, 31, {}, 0},
    {"month",
     1,
     12,
     {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"},
     1},
    {"day of week", 0, 6, {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}, 0},
};

std::optional<int> ParseValue(std::string_view text, const FieldSpec& f) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && end == text.data() + text.size()) return value;
  std::string upper;
  for (char c : text) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (int i = 0; i < 12; ++i) {
    if (f.names[i] != nullptr && upper == f.names[i]) return f.name_base + i;
  }
  return std::nullopt;
}

// One field into `bits` (bit i = value i); *star when it is `*` or `?`.
Status ParseField(std::string_view text, const FieldSpec& f, std::vector<bool>* bits, bool* star) {
  *star = text == "*" || text == "?";
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    auto bad = [&](const std::string& why) {
      return Status::InvalidArgument(
          fmt::format("{} field \"{}\": {}", f.name, std::string(part), why));
    };
    int step = 1;
    if (size_t slash = part.find('/'); slash != std::string_view::npos) {
      std::string_view s = part.substr(slash + 1);
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), step);
      if (ec != std::errc() || end != s.data() + s.size() || step < 1) {
        return bad("the step must be a positive number");
      }
      part = part.substr(0, slash);
    }
    int first = f.low, last = f.high;
    if (part != "*" && part != "?") {
      size_t dash = part.find('-');
      auto a = ParseValue(part.substr(0, dash), f);
      if (!a) return bad("not a number or name");
      first = last = *a;
      if (dash != std::string_view::npos) {
        auto b = ParseValue(part.substr(dash + 1), f);
        if (!b) return bad("not a number or name");
        last = *b;
      } else if (step > 1) {
        last = f.high;  // "5/15": from 5 on
      }
    }
    if (first < f.low || last > f.high) {
      return bad(fmt::format("out of range {}-{}", f.low, f.high));
    }
    if (first > last) return bad("the range's start is after its end");
    for (int v = first; v <= last; v += step) (*bits)[v] = true;
  }
  return Status::Ok();
}

std::string_view Descriptor(std::string_view text) {
  if (text == "@yearly" || text == "@annually") return "0 0 1 1 *";
  if (text == "@monthly") return "0 0 1 * *";
  if (text == "@weekly") return "0 0 * * 0";
  if (text == "@daily" || text == "@midnight") return "0 0 * * *";
  if (text == "@hourly") return "0 * * * *";
  return {};
}

}  // namespace

Result<CronSchedule> CronSchedule::Parse(std::string_view text) {
  if (text.rfind("TZ=", 0) == 0 || text.rfind("CRON_TZ=", 0) == 0) {
    return Status::InvalidArgument("a time zone in the schedule is not supported: use timeZone");
  }
  if (!text.empty() && text.front() == '@') {
    std::string_view expanded = Descriptor(text);
    if (expanded.empty()) {
      return Status::InvalidArgument(fmt::format(
          "unknown descriptor \"{}\" (known: @yearly, @annually, @monthly, @weekly, @daily, "
          "@midnight, @hourly)",
          std::string(text)));
    }
    text = expanded;
  }
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t j = i;
    while (j < text.size() && text[j] != ' ' && text[j] != '\t') ++j;
    if (j > i) fields.push_back(text.substr(i, j - i));
    i = j;
  }
  if (fields.size() != 5) {
    return Status::InvalidArgument(fmt::format(
        "expected exactly 5 fields (minute hour day-of-month month day-of-week), found {}",
        fields.size()));
  }
  CronSchedule s;
  bool star = false;
  for (int f = 0; f < 5; ++f) {
    std::vector<bool> bits(kFields[f].high + 1, false);
    ETNA_RETURN_IF_ERROR(ParseField(fields[f], kFields[f], &bits, &star));
    for (int v = 0; v <= kFields[f].high; ++v) {
      if (!bits[v]) continue;
      switch (f) {
        case 0:
          s.minutes_.set(v);
          break;
        case 1:
          s.hours_.set(v);
          break;
        case 2:
          s.days_.set(v);
          break;
        case 3:
          s.months_.set(v);
          break;
        case 4:
          s.weekdays_.set(v);
          break;
      }
    }
    if (f == 2) s.days_star_ = star;
    if (f == 4) s.weekdays_star_ = star;
  }
  return s;
}

bool CronSchedule::DayMatches(const LocalTime& t) const {
  bool dom = days_.test(t.day);
  bool dow = weekdays_.test(t.weekday % 7);
  if (days_star_ || weekdays_star_) return dom && dow;
  return dom || dow;
}

std::optional<TimeMs> CronSchedule::Next(TimeMs after_ms, const TimeZone& zone) const {
  constexpr TimeMs kMinute = 60'000;
  const TimeMs limit = after_ms + 5LL * 366 * 24 * 60 * kMinute;
  TimeMs t = (after_ms / kMinute + 1) * kMinute;
  if (after_ms < 0) t = (after_ms / kMinute) * kMinute;
  while (t <= limit) {
    LocalTime local = zone.ToLocal(t);
    const TimeMs into_hour = (local.minute * 60 + local.second) * 1000LL;
    if (!months_.test(local.month) || !DayMatches(local)) {
      t += (24 - local.hour) * 60 * kMinute - into_hour;  // the next local midnight
    } else if (!hours_.test(local.hour)) {
      t += 60 * kMinute - into_hour;  // the next hour
    } else if (!minutes_.test(local.minute)) {
      t += kMinute - local.second * 1000LL;
    } else {
      return t;
    }
  }
  return std::nullopt;
}

}  // namespace etna
