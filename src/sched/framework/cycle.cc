#include "sched/framework/cycle.h"

#include "sched/framework/session.h"

namespace etna::sched {

Result<Decision> RunCycle(Snapshot snapshot, const SchedulerConf& conf, const Registry& registry) {
  Session session(std::move(snapshot), conf, registry);
  ETNA_RETURN_IF_ERROR(session.Open());
  ETNA_RETURN_IF_ERROR(session.RunActions());
  return session.Close();
}

}  // namespace etna::sched
