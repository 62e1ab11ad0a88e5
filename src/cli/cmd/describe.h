// Shared by `etna describe` and `etna job view`: prints one object describe-style (its fields,
// for a job its PodGroups' conditions, and its Events). Returns the exit code.
#pragma once

#include <string>

#include "cli/kit/command.h"
#include "cli/kit/objects.h"

namespace etna::cli {

int DescribeObject(Invocation& inv, const ResourceInfo& info, const std::string& ns,
                   const std::string& name);

}  // namespace etna::cli
