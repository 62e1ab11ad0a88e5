// libFuzzer target: ParseClusterProfile must return nodes or an error naming the field, never
// crash, hang, throw or allocate without bound. What the agent does with a parsed profile must
// hold too, checked on the first 64 nodes (a profile may declare 10,000): each is found by name,
// and its GPUs and labels serialise as the Node's JSON (the etna.io/gpus annotation decodes back
// to the same devices).
// fuzz-sources: src/agent/gpu/cluster_profile.cc src/client/node_gpus.cc src/gpu/mig_catalog.cc
// fuzz-sources: src/common/resource.cc src/common/file.cc src/common/status.cc
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "agent/gpu/cluster_profile.h"
#include "client/node_gpus.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace etna;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto nodes = agent::ParseClusterProfile(text);
  if (!nodes.ok()) return 0;
  for (size_t i = 0; i < nodes->size() && i < 64; ++i) {
    const agent::NodeSpec& node = (*nodes)[i];
    if (!agent::FindProfileNode(*nodes, node.name).ok()) __builtin_trap();
    auto gpus = client::DecodeNodeGpus(client::EncodeNodeGpus(node.gpus));
    if (!gpus.ok() || *gpus != node.gpus) __builtin_trap();
    nlohmann::json object = {{"name", node.name},     {"labels", node.labels},
                             {"taints", node.taints}, {"cpu", node.cpu},
                             {"memory", node.memory}, {"switch", node.switch_name}};
    (void)object.dump();
  }
  return 0;
}
