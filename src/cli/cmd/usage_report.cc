#include "cli/cmd/usage_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "api/types/pod_run.h"
#include "cli/kit/output.h"
#include "common/percentile.h"
#include "common/time.h"

namespace etna::cli {
namespace {

using nlohmann::json;

const char* GroupingName(UsageGrouping by) {
  switch (by) {
    case UsageGrouping::kQueue:
      return "queue";
    case UsageGrouping::kNamespace:
      return "namespace";
    case UsageGrouping::kUser:
      return "user";
    case UsageGrouping::kJob:
      return "job";
  }
  return "queue";
}

std::string GroupKey(const api::types::PodRun& run, UsageGrouping by) {
  switch (by) {
    case UsageGrouping::kQueue:
      return run.queue();
    case UsageGrouping::kNamespace:
      return run.pod_namespace();
    case UsageGrouping::kUser:
      return run.user().empty() ? "<unknown>" : run.user();
    case UsageGrouping::kJob:
      return run.pod_namespace() + "/" + run.job_name();
  }
  return {};
}

std::string Hours(double h) { return fmt::format("{:.2f}", h); }
std::string Wait(double seconds) {
  return HumanAge(std::chrono::seconds(static_cast<int64_t>(std::llround(seconds))));
}

}  // namespace

Result<UsageGrouping> ParseUsageGrouping(const std::string& text) {
  for (UsageGrouping by : {UsageGrouping::kQueue, UsageGrouping::kNamespace, UsageGrouping::kUser,
                           UsageGrouping::kJob}) {
    if (text == GroupingName(by)) return by;
  }
  return Status::InvalidArgument(
      fmt::format("invalid --by \"{}\": want queue, namespace, user or job", text));
}

std::vector<UsageRow> SummarizeUsage(const std::vector<json>& runs, UsageGrouping by,
                                     UsageWindow window) {
  struct Acc {
    UsageRow row;
    std::set<std::string> jobs;
    std::vector<double> waits;
  };
  std::map<std::string, Acc> groups;
  for (const json& object : runs) {
    const api::types::PodRun run(object);
    const bool running = api::types::Bool(object, {"running"});
    const TimeMs ended = running ? window.until_ms : run.ended_ms();
    if (ended < window.since_ms || ended > window.until_ms) continue;
    Acc& acc = groups[GroupKey(run, by)];
    acc.row.key = GroupKey(run, by);
    const TimeMs from = std::max(run.scheduled_ms(), window.since_ms);
    const double hours = ended > from ? static_cast<double>(ended - from) / 3'600'000.0 : 0;
    for (const api::types::RunGpus& g : run.gpus()) {
      acc.row.gpu_hours += g.count * hours;
      acc.row.gpu_hours_by_model[g.model] += g.count * hours;
    }
    acc.jobs.insert(run.pod_namespace() + "/" + run.job_kind() + "/" + run.job_name());
    ++acc.row.runs;
    if (running) ++acc.row.running;
    if (run.preempted()) ++acc.row.preempted;
    acc.waits.push_back(static_cast<double>(run.WaitMs()) / 1000.0);
  }
  std::vector<UsageRow> out;
  for (auto& [key, acc] : groups) {
    acc.row.jobs = static_cast<int>(acc.jobs.size());
    acc.row.wait_p50_s = NearestRank(acc.waits, 0.50);
    acc.row.wait_p90_s = NearestRank(acc.waits, 0.90);
    acc.row.wait_p99_s = NearestRank(acc.waits, 0.99);
    out.push_back(std::move(acc.row));
  }
  std::sort(out.begin(), out.end(), [](const UsageRow& a, const UsageRow& b) {
    if (a.gpu_hours != b.gpu_hours) return a.gpu_hours > b.gpu_hours;
    return a.key < b.key;
  });
  return out;
}

std::string UsageTable(const std::vector<UsageRow>& rows, UsageGrouping by) {
  TableWriter t;
  std::string header = GroupingName(by);
  std::transform(header.begin(), header.end(), header.begin(), ::toupper);
  t.AddRow({header, "GPU-HOURS", "JOBS", "RUNS", "RUNNING", "PREEMPTED", "WAIT P50", "WAIT P90",
            "WAIT P99"});
  UsageRow total;
  for (const UsageRow& r : rows) {
    t.AddRow({r.key, Hours(r.gpu_hours), std::to_string(r.jobs), std::to_string(r.runs),
              std::to_string(r.running), std::to_string(r.preempted), Wait(r.wait_p50_s),
              Wait(r.wait_p90_s), Wait(r.wait_p99_s)});
    total.gpu_hours += r.gpu_hours;
    total.jobs += r.jobs;
    total.runs += r.runs;
    total.running += r.running;
    total.preempted += r.preempted;
  }
  t.AddRow({"TOTAL", Hours(total.gpu_hours), std::to_string(total.jobs), std::to_string(total.runs),
            std::to_string(total.running), std::to_string(total.preempted)});
  return t.Render();
}

json UsageJson(const std::vector<UsageRow>& rows, UsageGrouping by, UsageWindow window) {
  json items = json::array();
  for (const UsageRow& r : rows) {
    items.push_back(
        {{GroupingName(by), r.key},
         {"gpuHours", r.gpu_hours},
         {"gpuHoursByModel", r.gpu_hours_by_model},
         {"jobs", r.jobs},
         {"runs", r.runs},
         {"running", r.running},
         {"preempted", r.preempted},
         {"waitSeconds", {{"p50", r.wait_p50_s}, {"p90", r.wait_p90_s}, {"p99", r.wait_p99_s}}}});
  }
  return {{"since", FormatRfc3339(window.since_ms)},
          {"until", FormatRfc3339(window.until_ms)},
          {"by", GroupingName(by)},
          {"items", std::move(items)}};
}

std::string UsageCsv(const std::vector<UsageRow>& rows, UsageGrouping by) {
  auto quoted = [](const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  };
  std::string out =
      fmt::format("{},gpu_hours,jobs,runs,running,preempted,wait_p50_s,wait_p90_s,wait_p99_s\n",
                  GroupingName(by));
  for (const UsageRow& r : rows) {
    out += fmt::format("{},{:.3f},{},{},{},{},{:g},{:g},{:g}\n", quoted(r.key), r.gpu_hours, r.jobs,
                       r.runs, r.running, r.preempted, r.wait_p50_s, r.wait_p90_s, r.wait_p99_s);
  }
  return out;
}

}  // namespace etna::cli
