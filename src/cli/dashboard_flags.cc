#include "cli/dashboard_flags.h"

#include <fmt/format.h>

#include "cli/flags.h"
#include "common/strings.h"

namespace etna::cli {

std::vector<Flag> WithDashboardFlags(std::vector<Flag> flags) {
  flags.push_back({"prometheus-url", 0, "URL",
                   "the Prometheus that scrapes this cluster: the dashboard's history comes from "
                   "it (with the GPUs' utilization)"});
  flags.push_back({"usage-sample-period", 0, "D",
                   "how often the dashboard's allocation history is sampled (docs/dashboard.md)",
                   "1m"});
  return flags;
}

std::string ApplyDashboardFlags(const Invocation& inv, ApiRuntimeOptions* options) {
  options->prometheus_url = inv.Get("prometheus-url");
  if (!options->prometheus_url.empty() && !IsHttpUrl(options->prometheus_url)) {
    return fmt::format("--prometheus-url \"{}\": must start with http:// or https://",
                       options->prometheus_url);
  }
  if (!options->prometheus_url.empty() && inv.Has("usage-sample-period")) {
    return "--usage-sample-period: with --prometheus-url the history is Prometheus'; give one";
  }
  auto period = ParseDuration(inv.Get("usage-sample-period"));
  if (!period.ok() || period->count() <= 0) {
    return fmt::format("--usage-sample-period \"{}\": want a positive duration such as 1m or 10s",
                       inv.Get("usage-sample-period"));
  }
  options->usage_sample_period = *period;
  return "";
}

}  // namespace etna::cli
