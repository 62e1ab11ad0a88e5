#include "sim/report.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace etna::sim {
namespace {

std::string FormatNumber(double v) {
  std::string s = fmt::format("{:.6f}", v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s += '0';
  return s;
}

Status WriteOne(const std::string& path, const RunSummary& run, const Curve ReplayResult::*curve,
                bool total_gpus) {
  bool fresh = !std::filesystem::exists(path);
  std::ofstream f(path, std::ios::app);
  if (!f) return Status::Unavailable(fmt::format("{}: cannot write", path));
  if (fresh) {
    f << "workload,sc_policy,tune,seed";
    if (total_gpus) f << ",total_gpus";
    for (int b = 0; b < kBuckets; ++b) f << ',' << b;
    f << '\n';
  }
  for (const auto& r : run.seeds) {
    f << run.workload << ',' << run.policy.label << ',' << FormatNumber(run.tune) << ',' << r.seed;
    if (total_gpus) f << ',' << r.total_gpu_milli / 1000;
    for (int b = 0; b < kBuckets; ++b) {
      f << ',';
      if ((r.*curve)[b]) f << FormatNumber(*(r.*curve)[b]);
    }
    f << '\n';
  }
  return f ? Status::Ok() : Status::Unavailable(fmt::format("{}: write failed", path));
}

}  // namespace

Status WriteCurves(const std::string& dir, const RunSummary& run) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Unavailable(fmt::format("{}: cannot create: {}", dir, ec.message()));
  ETNA_RETURN_IF_ERROR(
      WriteOne(dir + "/analysis_allo_discrete.csv", run, &ReplayResult::alloc, true));
  ETNA_RETURN_IF_ERROR(
      WriteOne(dir + "/analysis_frag_discrete.csv", run, &ReplayResult::frag, false));
  return WriteOne(dir + "/analysis_frag_ratio_discrete.csv", run, &ReplayResult::frag_ratio, false);
}

double MeanAt(const RunSummary& run, const Curve ReplayResult::*curve, int bucket) {
  double sum = 0;
  int n = 0;
  for (const auto& r : run.seeds) {
    if (const auto& v = (r.*curve)[bucket]) {
      sum += *v;
      ++n;
    }
  }
  return n ? sum / n : std::nan("");
}

std::string OpenbLine(const RunSummary& run) {
  double a100 = MeanAt(run, &ReplayResult::alloc, 100);
  double a130 = MeanAt(run, &ReplayResult::alloc, 130);
  double unalloc = 0;
  int n = 0;
  for (const auto& r : run.seeds) {
    if (const auto& v = r.alloc[130]) {
      unalloc += static_cast<double>(r.total_gpu_milli) / 1000 * (1 - *v / 100);
      ++n;
    }
  }
  unalloc = n ? unalloc / n : std::nan("");
  return fmt::format(
      "OPENB workload={} policy={} seeds={} alloc_at_100={:.2f} alloc_at_130={:.2f} "
      "unalloc_gpus_at_130={:.1f} seconds={:.2f}",
      run.workload, run.policy.name, run.seeds.size(), a100, a130, unalloc, run.seconds);
}

}  // namespace etna::sim
