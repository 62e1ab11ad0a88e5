// Built-in fairness actions and plugins.
#include "sched/builtins.h"

namespace etna::sched {

void RegisterFairnessPlugins(Registry& /*r*/) {}

}  // namespace etna::sched
