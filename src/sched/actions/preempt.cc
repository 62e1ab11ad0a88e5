#include "sched/actions/preempt.h"

#include "sched/actions/victim_search.h"

namespace etna::sched {

Result<std::unique_ptr<Action>> PreemptAction::Create(Arguments& /*args*/) {
  return std::unique_ptr<Action>(new PreemptAction());
}

void PreemptAction::Execute(Session& session) {
  static const EligibilityPolicy kEligibility = PreemptEligibility();
  RunVictimSearch(session, kEligibility, PlacerOptions{});
}

}  // namespace etna::sched
