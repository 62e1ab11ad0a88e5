// Helpers shared by the JSON and YAML decoders. Not part of the codec's interface.
#pragma once

#include <string_view>

#include "api/codec/decode.h"
#include "common/status.h"

namespace etna::api::codec::internal {

// InvalidArgument when `text` is over limits.max_bytes.
Status CheckSize(std::string_view text, const DecodeLimits& limits);
// InvalidArgument "nesting deeper than N levels".
Status DepthError(int max_depth);

}  // namespace etna::api::codec::internal
