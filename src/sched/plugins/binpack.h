// binpack: Volcano's binpack plugin. Scores a node by how full it is after the task:
//   Σ w_r · (used_r + request_r) / allocatable_r  over the resources r the task requests and
//   that have a weight, divided by Σ w_r, × 100 × binpack.weight.
// A node where a weighted resource would overflow scores 0. Arguments: binpack.weight (1),
// binpack.cpu (1), binpack.memory (1), binpack.resources ("nvidia.com/gpu, example.com/foo")
// with binpack.resources.<name> (1) per listed resource.
//
// Thread-safety: none; one instance per session (the score function itself is pure).
#pragma once

#include <utility>
#include <vector>

#include "common/resource.h"
#include "sched/framework/plugin.h"
#include "sched/model/snapshot.h"

namespace etna::sched {

class BinpackPlugin : public Plugin {
 public:
  struct Weights {
    int64_t weight = 1;
    std::vector<std::pair<ResourceId, int64_t>> resources;  // resource → weight
  };
  static Result<std::unique_ptr<Plugin>> Create(PluginBuildContext& ctx);
  explicit BinpackPlugin(Weights w) : w_(std::move(w)) {}
  std::string_view name() const override { return "binpack"; }
  void OnSessionOpen(Session& session) override;

  static double Score(const Weights& w, const Task& t, const Node& n);

 private:
  Weights w_;
};

}  // namespace etna::sched
