// A cluster profile: the simulated nodes `etna dev` and `etna agent --profile` run, declared in
// a small YAML file (examples/clusters/dev.yaml):
//
//   nodeGroups:
//   - name: h100            # nodes h100-0 .. h100-3
//     count: 4
//     cpu: "128"            # default "32"
//     memory: 1Ti           # default 256Gi
//     pods: 110             # default 110
//     switch: sw-a          # -> label topology.etna.io/switch
//     labels: {k: v}        # extra node labels
//     taints: [{key: k, value: v, effect: NoSchedule}]
//     gpus: {model: NVIDIA-H100-80GB-HBM3, count: 8, memoryMiB: 81559, nvlink: nvswitch,
//            mig: ["1g.10gb", "3g.40gb"]}     # the MIG layout of every GPU, or per index:
//            # mig: {0: ["7g.80gb"], 1: ["1g.10gb", "1g.10gb"]}
//
// nvlink: nvswitch (one NVLink domain per node) | pairs (GPUs 0-1, 2-3, ...) | none (default).
// Every GPU gets a UUID derived from its node name and index, so it is the same on every run.
// Thread-safety: pure functions over plain values.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "client/node_gpus.h"
#include "common/status.h"

namespace etna::agent {

// One simulated node of a profile: what its agent registers.
struct NodeSpec {
  std::string name;
  std::string cpu = "32";
  std::string memory = "256Gi";
  int pods = 110;
  std::string switch_name;                    // empty: no switch label
  std::map<std::string, std::string> labels;  // extra labels
  nlohmann::json taints = nlohmann::json::array();
  std::vector<client::NodeGpu> gpus;
};

// Parses a profile; errors name the field ("nodeGroups[1].gpus.count: must be >= 0").
Result<std::vector<NodeSpec>> ParseClusterProfile(std::string_view yaml_text);
Result<std::vector<NodeSpec>> LoadClusterProfile(const std::string& path);
// The node named `name` of a profile, NotFound naming the nodes there are otherwise.
Result<NodeSpec> FindProfileNode(const std::vector<NodeSpec>& nodes, const std::string& name);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", stable for (node, index).
std::string SimulatedGpuUuid(std::string_view node, int index);

}  // namespace etna::agent
