#include "sim/trace.h"

#include <fmt/format.h>

#include "common/file.h"
#include "sim/csv_table.h"

namespace etna::sim {
namespace {

std::string CleanSpec(std::string s) {
  if (s == "nan" || s == "NaN" || s == "None") return {};
  return s;
}

}  // namespace

Result<std::vector<TraceNode>> ParseNodes(const std::string& text, const std::string& label) {
  ETNA_ASSIGN_OR_RETURN(CsvTable t,
                        CsvTable::Parse(text, label, {"sn", "cpu_milli", "memory_mib", "gpu"}));
  std::vector<TraceNode> out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    TraceNode n;
    n.name = t.Str(i, "sn");
    if (n.name.empty()) return t.Error(i, "sn", "empty node name");
    ETNA_ASSIGN_OR_RETURN(n.cpu_milli, t.Int(i, "cpu_milli", 0, int64_t{1} << 40));
    ETNA_ASSIGN_OR_RETURN(n.memory_mib, t.Int(i, "memory_mib", 0, int64_t{1} << 40));
    ETNA_ASSIGN_OR_RETURN(int64_t gpus, t.Int(i, "gpu", 0, 16));
    n.gpus = static_cast<int32_t>(gpus);
    n.model = CleanSpec(t.Str(i, "model"));
    if (n.gpus > 0 && n.model.empty()) n.model = "unknown";
    out.push_back(std::move(n));
  }
  return out;
}

Result<std::vector<TracePod>> ParsePods(const std::string& text, const std::string& label) {
  ETNA_ASSIGN_OR_RETURN(
      CsvTable t,
      CsvTable::Parse(text, label, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}));
  std::vector<TracePod> out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    TracePod p;
    p.name = t.Str(i, "name");
    if (p.name.empty()) return t.Error(i, "name", "empty pod name");
    ETNA_ASSIGN_OR_RETURN(p.cpu_milli, t.Int(i, "cpu_milli", 0, int64_t{1} << 40));
    ETNA_ASSIGN_OR_RETURN(p.memory_mib, t.Int(i, "memory_mib", 0, int64_t{1} << 40));
    ETNA_ASSIGN_OR_RETURN(int64_t num, t.Int(i, "num_gpu", 0, 16));
    ETNA_ASSIGN_OR_RETURN(int64_t milli, t.Int(i, "gpu_milli", 0, 1000));
    p.num_gpu = static_cast<int32_t>(num);
    p.gpu_milli = static_cast<int32_t>(milli);
    if (p.num_gpu == 0 && p.gpu_milli != 0) {
      return t.Error(i, "gpu_milli", fmt::format("{} with num_gpu 0", p.gpu_milli));
    }
    if (p.num_gpu > 0 && p.gpu_milli == 0) {
      return t.Error(i, "gpu_milli", fmt::format("0 with num_gpu {}", p.num_gpu));
    }
    if (p.num_gpu > 1 && p.gpu_milli != 1000) {
      return t.Error(i, "gpu_milli",
                     fmt::format("{} per GPU with num_gpu {}: only single-GPU tasks may share",
                                 p.gpu_milli, p.num_gpu));
    }
    if (p.num_gpu > 0) p.gpu_spec = CleanSpec(t.Str(i, "gpu_spec"));
    for (auto [column, field] :
         {std::pair{"creation_time", &p.creation_s}, std::pair{"scheduled_time", &p.scheduled_s},
          std::pair{"deletion_time", &p.deletion_s}}) {
      if (t.Str(i, column).empty()) continue;  // absent, or empty in this row
      ETNA_ASSIGN_OR_RETURN(*field, t.Int(i, column, 0, int64_t{1} << 40));
    }
    p.qos = t.Str(i, "qos");
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<TraceNode>> LoadNodes(const std::string& path) {
  ETNA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseNodes(text, path);
}

Result<std::vector<TracePod>> LoadPods(const std::string& path) {
  ETNA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParsePods(text, path);
}

}  // namespace etna::sim
