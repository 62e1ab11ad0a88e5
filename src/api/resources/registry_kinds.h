// The table of served resources behind ResourceRegistry (internal to resources/).
// Pure data built once; thread-safe.
#pragma once

#include <vector>

#include "api/resources/registry.h"

namespace etna::api::resources::internal {

// Every served resource, core kinds first, then by group in discovery order.
std::vector<ResourceInfo> ServedResources();

}  // namespace etna::api::resources::internal
