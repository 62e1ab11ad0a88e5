// libFuzzer target for the three patch flavours. Input: a mode byte ('m' merge, 'j' JSON patch,
// anything else strategic), then the target JSON, a newline, and the patch JSON. Both halves are
// decoded with the server's limits first, as the server does.
// fuzz-sources: src/api/codec/*.cc src/common/status.cc src/common/base64.cc
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/codec/decode.h"
#include "api/codec/patch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etna::api::codec;
  if (size < 2) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  size_t newline = text.find('\n');
  if (newline == std::string_view::npos) return 0;
  auto target = DecodeJson(text.substr(0, newline));
  auto patch = DecodeJson(text.substr(newline + 1));
  if (!target.ok() || !patch.ok()) return 0;
  etna::Result<Json> result = etna::Status::Internal("unset");
  switch (data[0]) {
    case 'm':
      result = ApplyMergePatch(*target, *patch);
      break;
    case 'j':
      result = ApplyJsonPatch(*target, *patch);
      break;
    default:
      result = ApplyStrategicMergePatch(*target, *patch);
      break;
  }
  if (result.ok()) (void)result->dump();
  return 0;
}
