#include "sched/framework/arguments.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "common/strings.h"
#include "common/time.h"

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
  std::string s = Lower(it->second);
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

Result<int64_t> ParseDurationMs(const std::string& text) {
  ETNA_ASSIGN_OR_RETURN(std::chrono::nanoseconds d, ParseDurationOrSeconds(text));
  if (d.count() < 0) {
    return Status::InvalidArgument(fmt::format("\"{}\" is a negative duration", text));
  }
  return CeilMilliseconds(d);
}

}  // namespace etna::sched
