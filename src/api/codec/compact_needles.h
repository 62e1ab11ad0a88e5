// What the label and field selectors share to rule objects out on their stored text before
// decoding them (MayMatchCompact): a string quoted as the stored JSON quotes it, and the test
// that every term has one of its needles in the text. Stateless functions.
#pragma once

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace etna::api::codec {

// `text` as a JSON string literal, as the server's compact JSON writes it; bytes that are not
// UTF-8 (which no stored string holds, so such a term never matches) are replaced, not thrown on.
inline std::string QuotedAsStored(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Whether, for each term, at least one of its needles occurs in `compact`.
inline bool EveryTermHasANeedle(const std::vector<std::vector<std::string>>& terms,
                                std::string_view compact) {
  return std::all_of(terms.begin(), terms.end(), [&](const std::vector<std::string>& needles) {
    return std::any_of(needles.begin(), needles.end(), [&](const std::string& n) {
      return compact.find(n) != std::string_view::npos;
    });
  });
}

}  // namespace etna::api::codec
