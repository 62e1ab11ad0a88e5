// The dashboard's history flags `etna server` and `etna dev` share (--prometheus-url,
// --usage-sample-period): their declarations, and one reading that checks them and refuses the
// sample period beside a Prometheus (whose history the dashboard then shows) rather than
// ignoring it. Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "cli/api_runtime.h"
#include "cli/kit/command.h"

namespace etna::cli {

// `flags` followed by the dashboard flags' declarations.
std::vector<Flag> WithDashboardFlags(std::vector<Flag> flags);

// Sets options->prometheus_url and options->usage_sample_period; "" when fine, else the usage
// error naming the flag.
std::string ApplyDashboardFlags(const Invocation& inv, ApiRuntimeOptions* options);

}  // namespace etna::cli
