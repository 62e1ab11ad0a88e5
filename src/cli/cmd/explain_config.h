// `etna explain config`: the scheduler's configuration in force, as the scheduler publishes it
// (api/types/well_known.h kConfigReportName): its source, actions and tiers with their
// arguments, and each key of the seed's ConfigMap volcano-system/volcano-scheduler-config with
// "in force: ..." or "ignored: <why>".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cli/kit/command.h"

namespace etna::cli {

// The report's text, one line per key.
std::string FormatConfigReport(const nlohmann::json& report);

int RunExplainConfig(Invocation& inv);

}  // namespace etna::cli
