#include "sched/framework/cycle.h"

#include "sched/framework/session.h"

namespace etna::sched {

Result<Decision> RunCycle(Snapshot snapshot, const SchedulerConf& conf, const Registry& registry,
                          std::function<double()> monotonic_ms, std::vector<Node>* nodes_after) {
  Session session(std::move(snapshot), conf, registry);
  if (monotonic_ms) session.SetTimer(std::move(monotonic_ms));
  ETNA_RETURN_IF_ERROR(session.Open());
  ETNA_RETURN_IF_ERROR(session.RunActions());
  Decision decision = session.Close();
  if (nodes_after) *nodes_after = session.ReleaseNodes();
  return decision;
}

}  // namespace etna::sched
