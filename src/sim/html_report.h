// report.html of one replay or of two side by side (`etna sim replay`, `etna sim compare`): one
// self-contained page, readable offline (inline SVG and CSS, no script, nothing fetched), with
//   - per queue and run: jobs, wait p50/p90/p99, JCT p50/p90, preemptions, work lost;
//   - the CDF of wait and of JCT per queue (run B dashed);
//   - allocated and deserved GPUs per queue over time, per run;
//   - cluster utilization over time;
//   - fairness over time: Jain's index of allocated/deserved over the queues with work.
// Every plotted series is an SVG element with data-series="<chart>:<queue>:<run>" (chart is
// wait-cdf, jct-cdf, allocated, deserved, utilization or jain), so tests can check what is drawn.
// It reads the replay's own outputs (jobs.csv, series.csv: sim/timeline.h), so a comparison needs
// only two output folders.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace etna::sim {

struct ReportRun {
  std::string label;       // "A: fairshare-off"
  std::string jobs_csv;    // JobsCsv's text
  std::string series_csv;  // SeriesCsv's text
};

// One run, or two compared. Errors name the run and the CSV line.
Result<std::string> HtmlReport(const std::string& title, const std::vector<ReportRun>& runs);

// The summary table as text, one line per queue and run:
// "<run> <queue> jobs=<n> wait_p50_s=.. wait_p90_s=.. jct_p90_s=.. preemptions=<n>".
Result<std::string> SummaryLines(const std::vector<ReportRun>& runs);

}  // namespace etna::sim
