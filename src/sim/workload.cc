#include "sim/workload.h"

#include <fmt/format.h>

#include <cctype>
#include <climits>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "sched/devices/request.h"
#include "sim/csv_table.h"

namespace etna::sim {
namespace {

// A hundred years: times past it would overflow milliseconds in sums.
constexpr double kMaxSeconds = 100.0 * 365 * 86400;

// The fields of etna's job trace (workload.h); others are refused, by name.
const char* const kJobFields[] = {"name",     "submit_s",   "duration_s",  "gpus",
                                  "tasks",    "queue",      "cpu",         "memory",
                                  "priority", "gpu_models", "checkpoint_s"};

bool IsJobField(const std::string& name) {
  return std::find(std::begin(kJobFields), std::end(kJobFields), name) != std::end(kJobFields);
}

// A field's text, nullopt when the record does not have it.
using FieldFn = std::function<std::optional<std::string>(const std::string&)>;

Result<double> Number(const std::string& text, const std::string& field, double min,
                      double max = 1e15) {
  double v = 0;
  size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (...) {
    used = 0;
  }
  if (text.empty() || used != text.size() || !std::isfinite(v)) {
    return Status::InvalidArgument(fmt::format("{}: \"{}\" is not a number", field, text));
  }
  if (v < min) return Status::InvalidArgument(fmt::format("{}: {} is below {}", field, v, min));
  if (v > max) return Status::InvalidArgument(fmt::format("{}: {} is above {}", field, v, max));
  return v;
}

Result<int64_t> Quantity(const std::string& text, const std::string& field, ResourceUnit unit) {
  auto q = ParseQuantity(text, unit);
  if (!q.ok() || *q < 0) {
    return Status::InvalidArgument(fmt::format("{}: \"{}\" is not a quantity", field, text));
  }
  return *q;
}

Result<SimJob> JobFrom(const FieldFn& get) {
  SimJob j;
  auto required = [&](const std::string& f) -> Result<std::string> {
    auto v = get(f);
    if (!v || v->empty()) return Status::InvalidArgument(f + ": required");
    return *v;
  };
  ETNA_ASSIGN_OR_RETURN(j.name, required("name"));
  ETNA_ASSIGN_OR_RETURN(std::string submit, required("submit_s"));
  ETNA_ASSIGN_OR_RETURN(double submit_s, Number(submit, "submit_s", 0, kMaxSeconds));
  j.submit_ms = std::llround(submit_s * 1000);
  ETNA_ASSIGN_OR_RETURN(std::string duration, required("duration_s"));
  ETNA_ASSIGN_OR_RETURN(double duration_s, Number(duration, "duration_s", 0, kMaxSeconds));
  j.duration_ms = std::llround(duration_s * 1000);
  auto optional = [&](const std::string& f, const std::string& fallback) {
    auto v = get(f);
    return v && !v->empty() ? *v : fallback;
  };
  ETNA_ASSIGN_OR_RETURN(double tasks, Number(optional("tasks", "1"), "tasks", 1));
  if (tasks != std::floor(tasks) || tasks > 100000) {
    return Status::InvalidArgument(fmt::format("tasks: {} is not a whole number of tasks", tasks));
  }
  j.tasks = static_cast<int32_t>(tasks);
  ETNA_ASSIGN_OR_RETURN(double gpus, Number(optional("gpus", "0"), "gpus", 0, 1024));
  if (gpus > 1 && gpus != std::floor(gpus)) {
    return Status::InvalidArgument(
        fmt::format("gpus: {}: only a task of one GPU or less may share one", gpus));
  }
  j.queue = optional("queue", "default");
  ETNA_ASSIGN_OR_RETURN(int64_t cpu, Quantity(optional("cpu", "1"), "cpu", ResourceUnit::kMilli));
  ETNA_ASSIGN_OR_RETURN(int64_t memory,
                        Quantity(optional("memory", "4Gi"), "memory", ResourceUnit::kUnit));
  j.request.Set(kCpu, cpu);
  j.request.Set(kMemory, memory);
  if (gpus > 0) j.request.Set(kGpu, std::llround(gpus * 1000));
  ETNA_ASSIGN_OR_RETURN(double priority,
                        Number(optional("priority", "0"), "priority", INT32_MIN, INT32_MAX));
  j.priority = static_cast<int32_t>(priority);
  j.gpu_models = sched::devices::ParseGpuModels(optional("gpu_models", ""));
  ETNA_ASSIGN_OR_RETURN(double checkpoint,
                        Number(optional("checkpoint_s", "0"), "checkpoint_s", 0, kMaxSeconds));
  j.checkpoint_interval_ms = std::llround(checkpoint * 1000);
  return j;
}

}  // namespace

Result<std::vector<SimJob>> ParseJobCsv(const std::string& text, const std::string& label) {
  ETNA_ASSIGN_OR_RETURN(CsvTable t,
                        CsvTable::Parse(text, label, {"name", "submit_s", "duration_s"}));
  for (const std::string& column : t.Columns()) {
    if (!IsJobField(column)) {
      return Status::InvalidArgument(fmt::format("{}:1: unknown column \"{}\"", label, column));
    }
  }
  std::vector<SimJob> out;
  out.reserve(t.size());
  for (size_t i = 0; i < t.size(); ++i) {
    auto job = JobFrom([&](const std::string& f) -> std::optional<std::string> {
      if (!t.Has(f)) return std::nullopt;
      return t.Str(i, f);
    });
    if (!job.ok()) return t.ErrorAt(i, job.status().message());
    out.push_back(std::move(*job));
  }
  return out;
}

Result<std::vector<SimJob>> ParseJobJsonl(const std::string& text, const std::string& label) {
  std::vector<SimJob> out;
  std::istringstream in(text);
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto object = nlohmann::json::parse(line, nullptr, false);
    if (!object.is_object()) {
      return Status::InvalidArgument(fmt::format("{}:{}: not a JSON object", label, lineno));
    }
    for (const auto& [key, value] : object.items()) {
      if (!IsJobField(key)) {
        return Status::InvalidArgument(
            fmt::format("{}:{}: unknown field \"{}\"", label, lineno, key));
      }
    }
    auto job = JobFrom([&](const std::string& f) -> std::optional<std::string> {
      auto it = object.find(f);
      if (it == object.end() || it->is_null()) return std::nullopt;
      return it->is_string() ? it->get<std::string>() : it->dump();
    });
    if (!job.ok()) {
      return Status::InvalidArgument(
          fmt::format("{}:{}: {}", label, lineno, job.status().message()));
    }
    out.push_back(std::move(*job));
  }
  return out;
}

Result<std::vector<SimJob>> JobsFromOpenb(const std::vector<TracePod>& pods, OpenbQueues queues) {
  std::vector<SimJob> out;
  out.reserve(pods.size());
  for (const TracePod& p : pods) {
    if (p.creation_s < 0 || p.deletion_s < 0) {
      return Status::InvalidArgument(fmt::format(
          "pod {}: the time-aware replay needs its creation_time and deletion_time", p.name));
    }
    SimJob j;
    j.name = p.name;
    if (queues == OpenbQueues::kQos && !p.qos.empty()) {
      j.queue.clear();
      for (char c : p.qos)
        j.queue += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    j.submit_ms = p.creation_s * 1000;
    const int64_t began = p.scheduled_s >= p.creation_s ? p.scheduled_s : p.creation_s;
    j.duration_ms = std::max<int64_t>(0, p.deletion_s - began) * 1000;
    j.request.Set(kCpu, p.cpu_milli);
    j.request.Set(kMemory, p.memory_mib * 1024 * 1024);
    if (p.num_gpu > 0) j.request.Set(kGpu, p.TotalGpuMilli());
    j.gpu_models = sched::devices::ParseGpuModels(p.gpu_spec);
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<sched::Node> NodesFromOpenb(const std::vector<TraceNode>& nodes) {
  std::vector<sched::Node> out;
  out.reserve(nodes.size());
  for (const TraceNode& tn : nodes) {
    sched::Node n;
    n.name = tn.name;
    n.allocatable.Set(kCpu, tn.cpu_milli);
    n.allocatable.Set(kMemory, tn.memory_mib * 1024 * 1024);
    n.allocatable.Set(kGpu, int64_t{tn.gpus} * 1000);
    for (int i = 0; i < tn.gpus; ++i) {
      sched::GpuDevice g;
      g.index = i;
      g.model = tn.model;
      g.uuid = fmt::format("{}-gpu{}", tn.name, i);
      n.gpus.push_back(std::move(g));
    }
    if (tn.gpus > 0) n.labels[sched::devices::kGpuModelLabel] = tn.model;
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace etna::sim
