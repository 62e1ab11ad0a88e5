// Accept-header parsing shared by discovery and Table negotiation (internal to resources/).
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace etna::api::resources::internal {

// One entry of an Accept list: "application/json;g=meta.k8s.io;v=v1;as=Table".
struct MediaRange {
  std::string type;                           // lower-cased "application/json"
  std::map<std::string, std::string> params;  // keys lower-cased, values unquoted, as sent
};

// Splits an Accept header into its media ranges; empty entries are skipped.
std::vector<MediaRange> ParseAccept(std::string_view accept);

// Whether `range` is JSON ("application/json", "application/*" or "*/*").
bool AcceptsJson(const MediaRange& range);

}  // namespace etna::api::resources::internal
