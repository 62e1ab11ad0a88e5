// libFuzzer target: DecodeJson and DecodeBody must return a value or an error, never crash,
// hang or throw; a decoded value must serialise again.
// fuzz-sources: src/api/codec/*.cc src/common/status.cc src/common/base64.cc
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/codec/decode.h"

namespace {

constexpr std::string_view kContentTypes[] = {"application/json",
                                              "application/merge-patch+json",
                                              "application/apply-patch+yaml",
                                              "application/yaml; charset=utf-8",
                                              "",
                                              "text/plain"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using etna::api::codec::DecodeLimits;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto json =
      etna::api::codec::DecodeJson(text, DecodeLimits{.max_bytes = 1 << 20, .max_depth = 64});
  if (json.ok()) (void)json->dump();
  if (size > 0) {
    std::string_view type = kContentTypes[data[0] % std::size(kContentTypes)];
    auto body = etna::api::codec::DecodeBody(text.substr(1), type);
    if (body.ok()) (void)body->dump();
  }
  return 0;
}
