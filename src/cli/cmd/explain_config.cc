// `etna explain config` (explain_config.h): prints the report the scheduler publishes.
#include "cli/cmd/explain_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>

#include "api/types/fields.h"
#include "api/types/well_known.h"
#include "cli/kit/objects.h"

namespace etna::cli {

using nlohmann::json;

std::string FormatConfigReport(const json& report) {
  std::string out = fmt::format("Source: {}\n", report.value("source", "unknown"));
  if (report.contains("seedConfigMap")) {
    out += fmt::format("Applied on top: ConfigMap {}\n", report.value("seedConfigMap", ""));
  }
  std::vector<std::string> actions;
  for (const json& a : api::types::Array(report, {"actions"})) {
    if (a.is_string()) actions.push_back(a.get<std::string>());
  }
  out += fmt::format("Actions: {}\n", fmt::join(actions, ", "));
  int t = 0;
  for (const json& tier : api::types::Array(report, {"tiers"})) {
    out += fmt::format("Tier {}:\n", t++);
    for (const json& p : tier) {
      std::vector<std::string> args;
      for (const auto& [k, v] : api::types::Object(p, {"arguments"}).items()) {
        args.push_back(fmt::format("{}={}", k, v.is_string() ? v.get<std::string>() : v.dump()));
      }
      out += fmt::format("  {}{}\n", api::types::String(p, {"name"}),
                         args.empty() ? "" : fmt::format(" ({})", fmt::join(args, ", ")));
    }
  }
  const json& keys = api::types::Array(report, {"keys"});
  if (!report.contains("seedConfigMap")) {
    out += fmt::format("Seed ConfigMap {}/{}: not found\n", "volcano-system",
                       "volcano-scheduler-config");
  } else {
    out += "Seed ConfigMap keys:\n";
  }
  for (const json& k : keys) {
    out += fmt::format("  {}: {}: {}\n", api::types::String(k, {"key"}),
                       api::types::Bool(k, {"inForce"}) ? "in force" : "ignored",
                       api::types::String(k, {"detail"}));
  }
  return out;
}

int RunExplainConfig(Invocation& inv) {
  Api* api = inv.api();
  if (api == nullptr) return 1;
  auto cm = api->Get(ResourcePath(*FindResource("configmaps"), api::types::kConfigReportNamespace,
                                  api::types::kConfigReportName));
  if (!cm.ok()) {
    return inv.Fail(fmt::format(
        "no configuration report ({}/{}): is the scheduler running "
        "(etna scheduler)? {}",
        api::types::kConfigReportNamespace, api::types::kConfigReportName, cm.status().message()));
  }
  json report = json::parse(api::types::String(*cm, {"data", api::types::kConfigReportKey}),
                            nullptr, /*allow_exceptions=*/false);
  if (!report.is_object()) {
    return inv.Fail(fmt::format("{}/{} key {} is not a JSON object",
                                api::types::kConfigReportNamespace, api::types::kConfigReportName,
                                api::types::kConfigReportKey));
  }
  std::fputs(FormatConfigReport(report).c_str(), stdout);
  return 0;
}

}  // namespace etna::cli
