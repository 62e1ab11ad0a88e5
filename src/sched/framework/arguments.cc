#include "sched/framework/arguments.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace etna::sched {

Status Arguments::GetInt(const std::string& key, int64_t* out) {
  auto it = values_.find(key);
  if (it == values_.end()) return Status::Ok();
  read_.insert(key);
  const std::string& s = it->second;
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    return Status::InvalidArgument(fmt::format("argument {}: \"{}\" is not an integer", key, s));
  }
  *out = v;
  return Status::Ok();
}

Status Arguments::GetDouble(const std::string& key, double* out) {
  auto it = values_.find(key);
  if (it == values_.end()) return Status::Ok();
  read_.insert(key);
  const std::string& s = it->second;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) {
    return Status::InvalidArgument(fmt::format("argument {}: \"{}\" is not a number", key, s));
  }
  *out = v;
  return Status::Ok();
}

Status Arguments::GetBool(const std::string& key, bool* out) {
  auto it = values_.find(key);
  if (it == values_.end()) return Status::Ok();
  read_.insert(key);
  std::string s = it->second;
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "true" || s == "yes" || s == "on" || s == "1") {
    *out = true;
  } else if (s == "false" || s == "no" || s == "off" || s == "0") {
    *out = false;
  } else {
    return Status::InvalidArgument(
        fmt::format("argument {}: \"{}\" is not a boolean", key, it->second));
  }
  return Status::Ok();
}

Status Arguments::GetString(const std::string& key, std::string* out) {
  auto it = values_.find(key);
  if (it == values_.end()) return Status::Ok();
  read_.insert(key);
  *out = it->second;
  return Status::Ok();
}

Status Arguments::GetDurationMs(const std::string& key, int64_t* out) {
  auto it = values_.find(key);
  if (it == values_.end()) return Status::Ok();
  read_.insert(key);
  auto r = ParseDurationMs(it->second);
  if (!r.ok()) return r.status().WithContext("argument " + key);
  *out = *r;
  return Status::Ok();
}

std::vector<std::string> Arguments::KeysWithPrefix(const std::string& prefix) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : values_) {
    if (k.starts_with(prefix)) {
      keys.push_back(k);
      read_.insert(k);
    }
  }
  return keys;
}

std::vector<std::string> Arguments::Unread() const {
  std::vector<std::string> keys;
  for (const auto& [k, v] : values_) {
    if (!read_.count(k)) keys.push_back(k);
  }
  return keys;
}

std::vector<std::string> SplitCommaList(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = text.substr(start, comma - start);
    size_t b = item.find_first_not_of(" \t");
    size_t e = item.find_last_not_of(" \t");
    if (b != std::string_view::npos) out.emplace_back(item.substr(b, e - b + 1));
    start = comma + 1;
  }
  return out;
}

Result<int64_t> ParseDurationMs(const std::string& text) {
  auto bad = [&] {
    return Status::InvalidArgument(fmt::format(
        "\"{}\" is not a duration (use e.g. 30s, 5m, 1h30m, 250ms or a number of seconds)", text));
  };
  if (text.empty()) return bad();
  bool all_digits = true;
  for (char c : text) all_digits &= std::isdigit(static_cast<unsigned char>(c)) != 0;
  if (all_digits) {
    if (text.size() > 12) return bad();
    return std::stoll(text) * 1000;
  }
  double total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
      ++i;
    if (i == start || i - start > 12) return bad();
    double v = std::strtod(text.substr(start, i - start).c_str(), nullptr);
    size_t ustart = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string unit = text.substr(ustart, i - ustart);
    double scale;
    if (unit == "ms")
      scale = 1;
    else if (unit == "s")
      scale = 1000;
    else if (unit == "m")
      scale = 60'000;
    else if (unit == "h")
      scale = 3'600'000;
    else
      return bad();
    total_ms += v * scale;
  }
  return static_cast<int64_t>(std::llround(total_ms));
}

}  // namespace etna::sched
