// Built-in eviction actions and plugins.
#include "sched/builtins.h"

namespace etna::sched {

void RegisterEvictionPlugins(Registry& /*r*/) {}

}  // namespace etna::sched
