// Output of trace replays: per-seed curves as CSV in the layout of the published results
// (fgd_expected_results/analysis_{allo,frag,frag_ratio}_discrete.csv) and the one-line summary
// per policy run:
//   OPENB workload=<w> policy=<p> seeds=<k> alloc_at_100=<mean %> alloc_at_130=<mean %>
//         unalloc_gpus_at_130=<mean> seconds=<wall>
//
// Thread-safety: plain functions.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "sim/replay.h"

namespace etna::sim {

struct RunSummary {
  std::string workload;
  Policy policy;
  double tune = 1.3;
  std::vector<ReplayResult> seeds;
  double seconds = 0;
};

// Appends (creating with a header when new) the three CSV files in `dir`.
Status WriteCurves(const std::string& dir, const RunSummary& run);
std::string OpenbLine(const RunSummary& run);

// Mean over seeds of a curve value (NaN when no seed has it).
double MeanAt(const RunSummary& run, const Curve ReplayResult::*curve, int bucket);

}  // namespace etna::sim
