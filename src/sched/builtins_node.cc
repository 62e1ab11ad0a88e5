// Built-in node actions and plugins.
#include "sched/builtins.h"

namespace etna::sched {

void RegisterNodePlugins(Registry& /*r*/) {}

}  // namespace etna::sched
