// libFuzzer target: LabelSelector::Parse on arbitrary text, then matching.
// fuzz-sources: src/api/codec/*.cc src/common/status.cc src/common/base64.cc
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/codec/selectors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::json kLabels = {
      {"app", "web"}, {"gpu", "8"}, {"volcano.sh/job-name", "job1"}, {"n", 3}};
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto selector = etna::api::codec::LabelSelector::Parse(text);
  if (selector.ok()) {
    (void)selector->Matches(kLabels);
    (void)selector->Matches(nlohmann::json());
    for (const auto& r : selector->requirements()) {
      if (r.key.empty()) __builtin_trap();  // a parsed requirement always has a key
    }
  }
  return 0;
}
