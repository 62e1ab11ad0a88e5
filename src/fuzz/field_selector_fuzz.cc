// libFuzzer target: FieldSelector::Parse on arbitrary text, then matching; the text pre-check
// (MayMatchCompact) must never refuse an object that Matches accepts.
// fuzz-sources: src/api/codec/*.cc src/common/status.cc src/common/base64.cc
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/codec/selectors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::json kObject = {{"metadata", {{"name", "p1"}, {"namespace", "default"}}},
                                         {"spec", {{"nodeName", "n1"}, {"priority", 5}}},
                                         {"status", {{"phase", "Running"}}}};
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto selector = etna::api::codec::FieldSelector::Parse(text);
  if (selector.ok()) {
    static const std::string kCompact = kObject.dump();
    if (selector->Matches(kObject) && !selector->MayMatchCompact(kCompact)) __builtin_trap();
    (void)selector->Matches(nlohmann::json());
  }
  return 0;
}
