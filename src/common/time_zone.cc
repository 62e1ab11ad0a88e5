// TimeZone (time_zone.h): TZif files and their POSIX footer rule, UTC offsets and local times.
#include "common/time_zone.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/file.h"

namespace etna {

namespace {

using std::chrono::days;
using std::chrono::sys_days;

constexpr int64_t kDay = 86400;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int64_t ReadBigEndian(const std::string& b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<uint8_t>(b[at + i]);
  if (bytes == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

// UTC seconds of local midnight-based `seconds` on the day the rule names in `year`, at local
// offset `offset` (the one in force before the change).
int64_t RuleInstant(int year, const TimeZone::Rule& r, int32_t offset) {
  using namespace std::chrono;
  sys_days day;
  auto y = std::chrono::year(year);
  auto m = std::chrono::month(static_cast<unsigned>(r.month));
  auto wd = std::chrono::weekday(static_cast<unsigned>(r.weekday));
  if (r.week >= 5) {
    day = sys_days(year_month_weekday_last(y, m, weekday_last(wd)));
  } else {
    day = sys_days(year_month_weekday(y, m, weekday_indexed(wd, static_cast<unsigned>(r.week))));
  }
  return day.time_since_epoch().count() * kDay + r.time_seconds - offset;
}

bool ValidZoneName(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.size() > 255) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' ||
          c == '+' || c == '.')) {
      return false;
    }
    if (c == '.' && (i == 0 || name[i - 1] == '/')) return false;  // no ".." or hidden parts
  }
  return true;
}

std::string ZoneDir() {
  const char* dir = std::getenv("TZDIR");
  return dir && *dir ? dir : "/usr/share/zoneinfo";
}

// A POSIX TZ text reader over one string.
class PosixReader {
 public:
  explicit PosixReader(std::string_view t) : t_(t) {}
  bool done() const { return i_ >= t_.size(); }
  bool Peek(char c) const { return i_ < t_.size() && t_[i_] == c; }
  bool Eat(char c) {
    if (!Peek(c)) return false;
    ++i_;
    return true;
  }
  bool Name() {  // "CET" or "<+0530>"
    if (Eat('<')) {
      size_t end = t_.find('>', i_);
      if (end == std::string_view::npos) return false;
      i_ = end + 1;
      return true;
    }
    size_t start = i_;
    while (i_ < t_.size() && std::isalpha(static_cast<unsigned char>(t_[i_]))) ++i_;
    return i_ - start >= 3;
  }
  bool Number(int* out) {
    size_t start = i_;
    int v = 0;
    while (i_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[i_]))) {
      v = v * 10 + (t_[i_++] - '0');
      if (v > 1000) return false;
    }
    *out = v;
    return i_ > start;
  }
  // [+-]hh[:mm[:ss]] in seconds.
  bool Time(int32_t* out) {
    int sign = Eat('-') ? -1 : (Eat('+'), 1);
    int h = 0, m = 0, s = 0;
    if (!Number(&h)) return false;
    if (Eat(':') && !Number(&m)) return false;
    if (Eat(':') && !Number(&s)) return false;
    *out = sign * (h * 3600 + m * 60 + s);
    return true;
  }
  bool Rule(TimeZone::Rule* r) {
    if (!Eat('M')) return false;  // Jn and n forms are not used by tzdata's footers
    if (!Number(&r->month) || !Eat('.') || !Number(&r->week) || !Eat('.') || !Number(&r->weekday)) {
      return false;
    }
    if (r->month < 1 || r->month > 12 || r->week < 1 || r->week > 5 || r->weekday > 6) {
      return false;
    }
    r->time_seconds = 7200;
    if (Eat('/') && !Time(&r->time_seconds)) return false;
    return true;
  }

 private:
  std::string_view t_;
  size_t i_ = 0;
};

}  // namespace

Status ParsePosixTz(std::string_view text, TimeZone* zone) {
  PosixReader r(text);
  int32_t std_west = 0;
  if (!r.Name() || !r.Time(&std_west)) {
    return Status::InvalidArgument(fmt::format("TZ rule \"{}\" is not understood", text));
  }
  zone->has_footer_ = true;
  zone->std_offset_ = -std_west;  // POSIX counts west of Greenwich as positive
  zone->has_dst_ = false;
  if (r.done()) return Status::Ok();
  if (!r.Name()) return Status::InvalidArgument(fmt::format("TZ rule \"{}\": bad name", text));
  int32_t dst_west = std_west - 3600;
  if (!r.Peek(',') && !r.Time(&dst_west)) {
    return Status::InvalidArgument(fmt::format("TZ rule \"{}\": bad offset", text));
  }
  if (!r.Eat(',') || !r.Rule(&zone->dst_start_) || !r.Eat(',') || !r.Rule(&zone->dst_end_) ||
      !r.done()) {
    return Status::InvalidArgument(fmt::format("TZ rule \"{}\": only Mm.w.d rules are read", text));
  }
  zone->dst_offset_ = -dst_west;
  zone->has_dst_ = true;
  return Status::Ok();
}

Status ParseTzif(const std::string& b, TimeZone* zone) {
  auto bad = [&] { return Status::InvalidArgument("not a TZif file"); };
  // A header's six counts; false when one is negative or larger than the file could hold (a
  // corrupt file must not wrap the size arithmetic below or size a huge vector).
  auto counts = [&](size_t at, int64_t c[6]) {
    for (int i = 0; i < 6; ++i) {
      c[i] = ReadBigEndian(b, at + 20 + 4 * i, 4);
      if (c[i] < 0 || static_cast<uint64_t>(c[i]) > b.size()) return false;
    }
    return true;
  };
  if (b.size() < 44 || b.compare(0, 4, "TZif") != 0) return bad();
  int64_t c[6];  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  if (!counts(0, c)) return bad();
  size_t at = 44;
  int time_bytes = 4;
  if (b[4] >= '2') {  // skip the 32-bit block; read the 64-bit one after its own header
    at += c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (b.size() < at + 44 || b.compare(at, 4, "TZif") != 0) return bad();
    if (!counts(at, c)) return bad();
    at += 44;
    time_bytes = 8;
  }
  const int64_t timecnt = c[3], typecnt = c[4];
  size_t need =
      at + timecnt * (time_bytes + 1) + typecnt * 6 + c[5] + c[2] * (time_bytes + 4) + c[1] + c[0];
  if (typecnt < 1 || b.size() < need) return bad();
  std::vector<int32_t> type_offsets(typecnt);
  size_t types_at = at + timecnt * (time_bytes + 1);
  for (int64_t k = 0; k < typecnt; ++k) {
    type_offsets[k] = static_cast<int32_t>(ReadBigEndian(b, types_at + 6 * k, 4));
  }
  zone->initial_offset_ = type_offsets[0];
  zone->transitions_.clear();
  for (int64_t k = 0; k < timecnt; ++k) {
    int64_t when = ReadBigEndian(b, at + k * time_bytes, time_bytes);
    auto type = static_cast<uint8_t>(b[at + timecnt * time_bytes + k]);
    if (type >= typecnt) return bad();
    zone->transitions_.push_back({when, type_offsets[type]});
  }
  if (time_bytes == 8 && need < b.size() && b[need] == '\n') {
    size_t end = b.find('\n', need + 1);
    if (end != std::string::npos && end > need + 1) {
      ETNA_RETURN_IF_ERROR(
          ParsePosixTz(std::string_view(b).substr(need + 1, end - need - 1), zone));
    }
  }
  return Status::Ok();
}

TimeZone TimeZone::Utc() {
  TimeZone z;
  z.name_ = "UTC";
  return z;
}

Result<TimeZone> TimeZone::Load(std::string_view name) {
  if (!ValidZoneName(name)) {
    return Status::InvalidArgument(
        fmt::format("unknown time zone \"{}\": want an IANA name like Europe/Berlin or UTC", name));
  }
  std::string path = ZoneDir() + "/" + std::string(name);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    if (name == "UTC" || name == "Etc/UTC") return Utc();
    return Status::InvalidArgument(fmt::format(
        "unknown time zone \"{}\": no such zone in {} (is tzdata installed?)", name, ZoneDir()));
  }
  auto bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  TimeZone z;
  z.name_ = std::string(name);
  if (Status s = ParseTzif(*bytes, &z); !s.ok()) {
    return Status::InvalidArgument(
        fmt::format("time zone \"{}\" ({}): {}", name, path, s.message()));
  }
  return z;
}

Result<TimeZone> TimeZone::Host() {
  if (const char* tz = std::getenv("TZ"); tz && *tz) {
    std::string_view name(tz);
    if (name.front() == ':') name.remove_prefix(1);
    if (auto zone = Load(name); zone.ok()) return zone;
    // A POSIX rule ("CET-1CEST") or an unknown name: the system's zone below.
  }
  std::error_code ec;
  auto target = std::filesystem::read_symlink("/etc/localtime", ec);
  if (!ec) {
    std::string t = target.lexically_normal().string();
    size_t at = t.find("zoneinfo/");
    if (at != std::string::npos) return Load(t.substr(at + 9));
  }
  if (auto name = ReadFile("/etc/timezone"); name.ok()) {
    std::string n = *name;
    while (!n.empty() && std::isspace(static_cast<unsigned char>(n.back()))) n.pop_back();
    if (!n.empty()) return Load(n);
  }
  if (auto bytes = ReadFile("/etc/localtime"); bytes.ok()) {
    TimeZone z;
    z.name_ = "localtime";
    if (ParseTzif(*bytes, &z).ok()) return z;
  }
  return Utc();
}

std::vector<TimeZone::Transition> TimeZone::RuleTransitions(int64_t utc_s) const {
  std::vector<Transition> out;
  if (!has_dst_) return out;
  auto ymd = std::chrono::year_month_day(sys_days(days(FloorDiv(utc_s, kDay))));
  int year = static_cast<int>(ymd.year());
  for (int y = year - 1; y <= year + 1; ++y) {
    out.push_back({RuleInstant(y, dst_start_, std_offset_), dst_offset_});
    out.push_back({RuleInstant(y, dst_end_, dst_offset_), std_offset_});
  }
  std::sort(out.begin(), out.end(),
            [](const Transition& a, const Transition& b) { return a.at_s < b.at_s; });
  return out;
}

int32_t TimeZone::OffsetSeconds(TimeMs utc_ms) const {
  int64_t t = FloorDiv(utc_ms, 1000);
  if (!transitions_.empty() && t < transitions_.front().at_s) return initial_offset_;
  if (transitions_.empty() || t >= transitions_.back().at_s) {
    if (!has_footer_) return transitions_.empty() ? initial_offset_ : transitions_.back().offset;
    if (!has_dst_) return std_offset_;
    int32_t offset = std_offset_;
    for (const Transition& tr : RuleTransitions(t)) {
      if (tr.at_s <= t) offset = tr.offset;
    }
    return offset;
  }
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), t,
                             [](int64_t v, const Transition& tr) { return v < tr.at_s; });
  return std::prev(it)->offset;
}

std::optional<TimeMs> TimeZone::NextOffsetChange(TimeMs utc_ms) const {
  int64_t t = FloorDiv(utc_ms, 1000);
  int32_t now = OffsetSeconds(utc_ms);
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), t,
                             [](int64_t v, const Transition& tr) { return v < tr.at_s; });
  for (; it != transitions_.end(); ++it) {
    if (it->offset != now) return it->at_s * 1000;
  }
  if (!has_dst_) return std::nullopt;
  int64_t from = std::max(t, transitions_.empty() ? t : transitions_.back().at_s);
  for (int year_step = 0; year_step < 2; ++year_step) {
    for (const Transition& tr : RuleTransitions(from + year_step * 366 * kDay)) {
      if (tr.at_s > t && tr.offset != now) return tr.at_s * 1000;
    }
  }
  return std::nullopt;
}

LocalTime TimeZone::ToLocal(TimeMs utc_ms) const {
  LocalTime l;
  l.offset_seconds = OffsetSeconds(utc_ms);
  int64_t local_s = FloorDiv(utc_ms, 1000) + l.offset_seconds;
  int64_t day = FloorDiv(local_s, kDay);
  int64_t in_day = local_s - day * kDay;
  auto ymd = std::chrono::year_month_day(sys_days(days(day)));
  l.year = static_cast<int>(ymd.year());
  l.month = static_cast<int>(static_cast<unsigned>(ymd.month()));
  l.day = static_cast<int>(static_cast<unsigned>(ymd.day()));
  l.weekday = static_cast<int>(std::chrono::weekday(sys_days(days(day))).iso_encoding());
  l.hour = static_cast<int>(in_day / 3600);
  l.minute = static_cast<int>(in_day % 3600 / 60);
  l.second = static_cast<int>(in_day % 60);
  return l;
}

std::string TimeZone::FormatRfc3339(TimeMs utc_ms) const {
  LocalTime l = ToLocal(utc_ms);
  int32_t off = l.offset_seconds;
  char sign = off < 0 ? '-' : '+';
  off = off < 0 ? -off : off;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{}{:02}:{:02}", l.year, l.month, l.day,
                     l.hour, l.minute, l.second, sign, off / 3600, off % 3600 / 60);
}

std::string TimeZone::FormatWeekdayTime(TimeMs utc_ms) const {
  static constexpr const char* kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  LocalTime l = ToLocal(utc_ms);
  return fmt::format("{} {:02}:{:02}", kDays[l.weekday - 1], l.hour, l.minute);
}

}  // namespace etna
