// Placement policies of the trace simulator (FGD's baselines and etna's fgdplus).
#include "sched/builtins.h"
#include "sched/plugins/gpushare_policies.h"

namespace etna::sched {

void RegisterSimPlugins(Registry& r) {
  using P = GpuSharePolicyPlugin::Policy;
  for (P p : {P::kRandom, P::kDotProd, P::kGpuClustering, P::kGpuPacking, P::kBestFit, P::kFgd,
              P::kFgdPlus}) {
    r.AddPlugin(GpuSharePolicyPlugin::PluginName(p),
                [p](PluginBuildContext& ctx) { return GpuSharePolicyPlugin::Create(p, ctx); });
  }
}

}  // namespace etna::sched
