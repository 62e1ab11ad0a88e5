// Small string helpers shared across modules. Pure functions; thread-safe.
#pragma once

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace etna {

// ASCII case-insensitive equality ("Pods" == "pods", "A100" == "a100").
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// `s` without leading and trailing ASCII whitespace (" a b\n" -> "a b"). A view into `s`.
inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "a, b,c" into trimmed, non-empty items (comma lists in flags and configuration).
inline std::vector<std::string> SplitCommaList(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    std::string_view item = Trim(text.substr(start, comma - start));
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

// The offset of the first byte of `s` that is not well-formed UTF-8 (an overlong form, a
// surrogate, a code point past U+10FFFF, a cut sequence), or npos. With `controls_too`, C0
// controls other than tab, LF and CR, and DEL, count as bad too (YAML does not allow them).
inline size_t InvalidUtf8Offset(std::string_view s, bool controls_too = false) {
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (controls_too && ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F)) {
      return i;
    }
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) return i;
    uint32_t cp = c & (0x7f >> len);
    for (size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc >> 6) != 0x2) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += len;
  }
  return std::string_view::npos;
}

// Whether `s` is well-formed UTF-8: what JSON, and so every API object, can hold.
inline bool IsUtf8(std::string_view s) { return InvalidUtf8Offset(s) == std::string_view::npos; }

// `s` with ASCII letters lowercased ("Application/JSON" -> "application/json").
inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Go's strconv.ParseBool (how Kubernetes reads query flags): 1 t T TRUE true True → true;
// 0 f F FALSE false False → false; anything else nullopt.
inline std::optional<bool> ParseBool(std::string_view text) {
  if (text == "1" || text == "t" || text == "T" || text == "TRUE" || text == "true" ||
      text == "True") {
    return true;
  }
  if (text == "0" || text == "f" || text == "F" || text == "FALSE" || text == "false" ||
      text == "False") {
    return false;
  }
  return std::nullopt;
}

// Whether `url` starts with http:// or https:// (what a Prometheus or webhook address must).
inline bool IsHttpUrl(std::string_view url) {
  return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

// Percent-escapes a URL query value (everything but letters, digits and -_.~).
inline std::string QueryEscape(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace etna
