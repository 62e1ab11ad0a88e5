// Small string helpers shared across modules. Pure functions; thread-safe.
#pragma once

#include <cctype>
#include <string_view>

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

}  // namespace etna
