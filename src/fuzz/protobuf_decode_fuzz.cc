// libFuzzer target: Kubernetes protobuf request bodies.
// fuzz-sources: src/api/codec/*.cc src/common/status.cc src/common/base64.cc
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/codec/protobuf.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  auto decoded = etna::api::codec::DecodeKubernetesProtobuf(body);
  if (decoded.ok()) (void)decoded->dump();
  return 0;
}
