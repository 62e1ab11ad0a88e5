// libFuzzer target: FieldSelector::Parse on arbitrary text, then matching.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/codec/selectors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::json kObject = {{"metadata", {{"name", "p1"}, {"namespace", "default"}}},
                                         {"spec", {{"nodeName", "n1"}, {"priority", 5}}},
                                         {"status", {{"phase", "Running"}}}};
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto selector = etna::api::codec::FieldSelector::Parse(text);
  if (selector.ok()) {
    (void)selector->Matches(kObject);
    (void)selector->Matches(nlohmann::json());
  }
  return 0;
}
