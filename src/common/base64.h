// Standard base64 (RFC 4648, with padding): Secret data, kubeconfig CA data, list continue
// tokens, protobuf bytes fields. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace etna {

std::string Base64Encode(std::string_view data);
// The decoded bytes, or nullopt unless `text` is canonical padded base64 (length a multiple of
// 4, only the standard alphabet, '=' only as the last one or two characters).
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace etna
