#include "sched/actions/reclaim.h"

#include "sched/actions/victim_search.h"

namespace etna::sched {

Result<std::unique_ptr<Action>> ReclaimAction::Create(Arguments& /*args*/) {
  return std::unique_ptr<Action>(new ReclaimAction());
}

void ReclaimAction::Execute(Session& session) {
  static const EligibilityPolicy kEligibility = ReclaimEligibility();
  RunVictimSearch(session, kEligibility, PlacerOptions{});
}

}  // namespace etna::sched
