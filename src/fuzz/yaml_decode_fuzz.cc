// libFuzzer target: DecodeYamlDocuments must return documents or an error, never crash, hang,
// throw or blow up on aliases; every document must serialise as JSON.
// fuzz-sources: src/api/codec/*.cc src/common/status.cc src/common/base64.cc
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/codec/decode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto docs = etna::api::codec::DecodeYamlDocuments(text);
  if (docs.ok()) {
    for (const auto& doc : *docs) (void)doc.dump();
  }
  return 0;
}
