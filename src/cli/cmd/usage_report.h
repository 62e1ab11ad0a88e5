// UsageReport: what `etna usage` prints — GPU-hours, jobs, pod runs, preemptions and wait-time
// percentiles per queue, namespace, user or job over a window, from the accounting records
// (PodRuns, api/types/pod_run.h) and the runs still going (records made up to now), as Slurm's
// sreport and sacct give them. Only the part of a run inside the window counts; a run belongs to
// the window when it ended in it or is still running. Waits are per pod run (creation to bind),
// nearest-rank percentiles.
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace etna::cli {

enum class UsageGrouping { kQueue, kNamespace, kUser, kJob };
// "queue", "namespace", "user" or "job"; an error names the flag's choices.
Result<UsageGrouping> ParseUsageGrouping(const std::string& text);

struct UsageRow {
  std::string key;  // the queue, namespace, user ("<unknown>" when not recorded) or ns/job
  double gpu_hours = 0;
  std::map<std::string, double> gpu_hours_by_model;
  int jobs = 0;  // distinct workloads
  int runs = 0;  // pod runs
  int running = 0;
  int preempted = 0;
  double wait_p50_s = 0, wait_p90_s = 0, wait_p99_s = 0;
};

struct UsageWindow {
  TimeMs since_ms = 0;
  TimeMs until_ms = 0;
};

// Rows by GPU-hours, most first (ties by key). `runs` are PodRun objects; a running one has
// "running": true and its end at until_ms.
std::vector<UsageRow> SummarizeUsage(const std::vector<nlohmann::json>& runs, UsageGrouping by,
                                     UsageWindow window);

// -o table (with a TOTAL row), json and csv.
std::string UsageTable(const std::vector<UsageRow>& rows, UsageGrouping by);
nlohmann::json UsageJson(const std::vector<UsageRow>& rows, UsageGrouping by, UsageWindow window);
std::string UsageCsv(const std::vector<UsageRow>& rows, UsageGrouping by);

}  // namespace etna::cli
