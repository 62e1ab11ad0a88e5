// Built-in queueing actions and plugins.
#include "sched/builtins.h"

namespace etna::sched {

void RegisterQueueingPlugins(Registry& /*r*/) {}

}  // namespace etna::sched
