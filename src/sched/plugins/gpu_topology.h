// gpu-topology: places a task's whole GPUs by the node's interconnect (docs/design.md#gpus).
//
// - Device chooser for tasks of two or more whole GPUs: the tightest NVLink domain that holds
//   them all; when none does, the fewest domains (largest first, then the tightest domain for
//   the remainder); inside a domain the same rule by PCIe switch, then NUMA node. GPUs without
//   a domain/switch/NUMA value count as groups of one.
// - `volcano.sh/preferred-topology: full` on the pod (PodSpec::require_full_nvlink) makes one
//   domain a requirement: a dynamic predicate rejects nodes without a domain that has room,
//   with "node(s) had no NVLink domain with N free GPUs". When the node's idle GPUs are too few
//   anyway (the task could only be pipelined), GPUs held by releasing tasks count as free.
// - NodeOrder score for tasks of whole GPUs, × gpu-topology.weight:
//     fits one domain: 100 − 50 · (free left in that domain) / (GPUs in that domain)
//     split over k domains: 50 / k;   no room: 0.
//   so nodes where the task fits in one domain win, and among them the tightest fit, which
//   keeps large domains whole.
//
// Arguments (the seed's gpu-topology-config.json keys, prefixed with the plugin name):
//   gpu-topology.weight (1, >= 0)
//   gpu-topology.nvlinkPreferred (true): group by NVLink domain first; false: ignore domains
//     (the requirement from preferred-topology still holds)
//   gpu-topology.pciePreferred (false): group by PCIe switch before NVLink domain
// The seed's `gpuTopologyAwareness: false` means leaving the plugin out; its `nicTopology`
// penalties belong to network-topology-aware (intraNodePenalty, interNodePenalty).
//
// Thread-safety: none; one instance per session.
#pragma once

#include <optional>
#include <vector>

#include "sched/framework/plugin.h"
#include "sched/model/snapshot.h"

namespace etna::sched {

class GpuTopologyPlugin : public Plugin {
 public:
  struct Options {
    int64_t weight = 1;
    bool nvlink_preferred = true;
    bool pcie_preferred = false;
  };
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit GpuTopologyPlugin(Options o) : o_(o) {}
  std::string_view name() const override { return "gpu-topology"; }
  void OnSessionOpen(Session& session) override;

  // `count` free whole GPUs of `n` chosen by the rule above; nullopt when fewer are free.
  static std::optional<std::vector<DeviceAllocation>> Choose(const Options& o, const Node& n,
                                                             int count);
  // The most free whole GPUs inside one NVLink domain of `n`.
  static int LargestFreeDomain(const Node& n);
  // The score above, without the weight.
  static double Score(const Node& n, int count);

 private:
  Options o_;
};

}  // namespace etna::sched
