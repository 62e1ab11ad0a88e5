// go-yaml v2's resolve() for plain scalars, for JSON.
#include "api/codec/yaml_scalar.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>

namespace etna::api::codec::internal {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

std::optional<bool> ResolveBool(std::string_view s) {
  for (std::string_view t :
       {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}) {
    if (s == t) return true;
  }
  for (std::string_view f :
       {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}) {
    if (s == f) return false;
  }
  return std::nullopt;
}

bool IsNull(std::string_view s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

bool IsSpecialFloat(std::string_view s) {
  for (std::string_view v : {".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf",
                             "+.INF", "-.inf", "-.Inf", "-.INF"}) {
    if (s == v) return true;
  }
  return false;
}

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// strconv.ParseInt(s, 0, 64), falling back to ParseUint for large positive values.
std::optional<Json> ParseInteger(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() >= 2 && s[0] == '0') {
    char p = s[1];
    if (p == 'x' || p == 'X') {
      base = 16;
      s.remove_prefix(2);
    } else if (p == 'o' || p == 'O') {
      base = 8;
      s.remove_prefix(2);
    } else if (p == 'b' || p == 'B') {
      base = 2;
      s.remove_prefix(2);
    } else {
      base = 8;
      s.remove_prefix(1);
    }
  }
  if (s.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  for (char c : s) {
    int d = DigitValue(c);
    if (d >= base) return std::nullopt;
    if (magnitude > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) {
      return std::nullopt;  // overflow
    }
    magnitude = magnitude * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  constexpr uint64_t kMaxPositive = static_cast<uint64_t>(INT64_MAX);
  if (negative) {
    if (magnitude > kMaxPositive + 1) return std::nullopt;
    if (magnitude == kMaxPositive + 1) return Json(INT64_MIN);
    return Json(-static_cast<int64_t>(magnitude));
  }
  if (magnitude <= kMaxPositive) return Json(static_cast<int64_t>(magnitude));
  return Json(magnitude);
}

// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool IsYamlStyleFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&]() {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

std::optional<Json> ParseFloat(const std::string& s) {
  if (!IsYamlStyleFloat(s)) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return Json(v);
}

std::optional<Json> ParseNumber(std::string_view value) {
  std::string plain;
  plain.reserve(value.size());
  for (char c : value) {
    if (c != '_') plain.push_back(c);
  }
  if (std::optional<Json> i = ParseInteger(plain)) return i;
  return ParseFloat(plain);
}

Status NotJson(std::string_view value) {
  return Status::InvalidArgument(fmt::format("{} cannot be represented in JSON", value));
}

}  // namespace

Result<Json> ResolveYamlScalar(const std::string& value, std::string_view tag) {
  if (tag == "!") return Json(value);
  if (tag == "?") {
    if (IsNull(value)) return Json(nullptr);
    if (std::optional<bool> b = ResolveBool(value)) return Json(*b);
    if (IsSpecialFloat(value)) return NotJson(value);
    char c = value.front();
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (std::optional<Json> n = ParseNumber(value)) return std::move(*n);
    }
    return Json(value);
  }
  if (!tag.starts_with(kTagPrefix)) return Json(value);  // a local tag: keep the text
  std::string_view kind = tag.substr(kTagPrefix.size());
  if (kind == "int" || kind == "float") {
    if (IsSpecialFloat(value)) return NotJson(value);
    std::optional<Json> n = ParseNumber(value);
    if (n && kind == "float") return Json(n->get<double>());
    if (n && n->is_number_integer()) return std::move(*n);
    return Status::InvalidArgument(fmt::format("\"{}\" is not a valid !!{}", value, kind));
  }
  if (kind == "bool") {
    if (std::optional<bool> b = ResolveBool(value)) return Json(*b);
    return Status::InvalidArgument(fmt::format("\"{}\" is not a valid !!bool", value));
  }
  if (kind == "null") {
    if (IsNull(value)) return Json(nullptr);
    return Status::InvalidArgument(fmt::format("\"{}\" is not a valid !!null", value));
  }
  return Json(value);  // str, binary, timestamp and the rest stay text
}

}  // namespace etna::api::codec::internal
