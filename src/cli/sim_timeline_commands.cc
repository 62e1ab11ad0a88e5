// The time-aware simulator's commands. `etna sim replay`: a job trace replayed in virtual time
// (sim/timeline.h) through the scheduling core, with the configuration file the daemon reads, the
// cluster's queues as Volcano Queue objects and its nodes as a cluster profile (examples/clusters/)
// or an openb node list.
//
//   etna sim replay --trace FILE --out DIR [--format auto|csv|jsonl|openb] [--conf FILE]
//                   [--queues FILE] [--cluster FILE] [--openb-queues default|qos]
//                   [--cycle 10s] [--sample 1h] [--checkpoint-interval D]
//
// Writes DIR/jobs.csv, DIR/series.csv and DIR/report.html and prints one SIM line.
// `etna sim compare DIR_A DIR_B --out DIR`: two replays' report side by side (sim/html_report.h).
// `etna sim generate`: a synthetic trace (sim/generator.h) as etna's job CSV.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/gpu/cluster_profile.h"
#include "agent/gpu/gpu_source.h"
#include "agent/node_object.h"
#include "api/codec/decode.h"
#include "cli/kit/command.h"
#include "cli/kit/objects.h"
#include "cli/kit/output.h"
#include "common/file.h"
#include "common/strings.h"
#include "sched/framework/conf.h"
#include "sched/framework/registry.h"
#include "scheduler/convert.h"
#include "sim/generator.h"
#include "sim/html_report.h"
#include "sim/timeline.h"
#include "sim/workload.h"

namespace etna::cli {
namespace {

using nlohmann::json;

// The nodes of a cluster profile, as the scheduler converts the Nodes their agents register.
Result<std::vector<sched::Node>> ProfileNodes(const std::string& path) {
  ETNA_ASSIGN_OR_RETURN(std::vector<agent::NodeSpec> specs, agent::LoadClusterProfile(path));
  std::vector<sched::Node> out;
  for (const agent::NodeSpec& spec : specs) {
    agent::InventoryGpuSource source(spec.gpus);
    ETNA_ASSIGN_OR_RETURN(std::vector<agent::GpuDevice> devices, source.Devices());
    agent::NodeReport report;
    report.spec = spec;
    report.gpus = std::move(devices);
    json node = {{"apiVersion", "v1"},
                 {"kind", "Node"},
                 {"metadata",
                  {{"name", spec.name},
                   {"labels", agent::NodeLabels(report)},
                   {"annotations", agent::NodeAnnotations(report)}}},
                 {"spec", {{"taints", spec.taints}}},
                 {"status", agent::NodeStatusObject(report, json::array())}};
    auto converted = scheduler::ConvertNode(node);
    if (!converted.ok()) return converted.status().WithContext(path + ": node " + spec.name);
    out.push_back(std::move(*converted));
  }
  return out;
}

Result<std::vector<sched::Node>> ClusterNodes(const std::string& path) {
  if (std::filesystem::path(path).extension() == ".csv") {
    ETNA_ASSIGN_OR_RETURN(std::vector<sim::TraceNode> nodes, sim::LoadNodes(path));
    return sim::NodesFromOpenb(nodes);
  }
  return ProfileNodes(path);
}

// The Queue objects of `path` (none: only "default"), parents resolved; "default" is added when
// the file has none, as the API server bootstraps it.
Result<std::vector<sched::Queue>> Queues(const std::string& path) {
  std::vector<scheduler::QueueRecord> records;
  if (!path.empty()) {
    ETNA_ASSIGN_OR_RETURN(std::vector<Manifest> manifests, ReadManifests({path}));
    for (const Manifest& m : manifests) {
      if (m.object.value("kind", "") != "Queue") {
        return Status::InvalidArgument(
            fmt::format("{}: a {} is not a Queue", m.source, m.object.value("kind", "<no kind>")));
      }
      auto record = scheduler::ConvertQueue(m.object);
      if (!record.ok()) return record.status().WithContext(m.source);
      if (!record->time_policies.empty()) {
        // The replay keeps no wall-clock calendar to judge the windows against.
        return Status::InvalidArgument(fmt::format(
            "{}: queue {}: spec.timePolicies is not simulated; remove it to replay this queue",
            m.source, record->queue.name));
      }
      records.push_back(std::move(*record));
    }
  }
  bool has_default = false;
  for (const auto& r : records) has_default |= r.queue.name == "default";
  if (!has_default) {
    scheduler::QueueRecord d;
    d.queue.name = "default";
    records.insert(records.begin(), std::move(d));
  }
  std::map<std::string, sched::QueueIdx> index;
  for (size_t i = 0; i < records.size(); ++i) {
    index[records[i].queue.name] = static_cast<sched::QueueIdx>(i);
  }
  std::vector<sched::Queue> out;
  for (auto& r : records) {
    if (!r.parent.empty() && r.parent != "root") {
      auto p = index.find(r.parent);
      if (p == index.end()) {
        return Status::InvalidArgument(fmt::format(
            "{}: queue {}: parent \"{}\" is not among the queues", path, r.queue.name, r.parent));
      }
      r.queue.parent = p->second;
    }
    out.push_back(std::move(r.queue));
  }
  return out;
}

// A configuration file as the daemon takes it: the conf itself, or the ConfigMap holding it
// under volcano-scheduler.conf. Empty path: etna's default configuration.
Result<sched::SchedulerConf> Conf(const std::string& path) {
  std::string text(sched::DefaultSchedulerConfYaml());
  if (!path.empty()) {
    ETNA_ASSIGN_OR_RETURN(text, ReadFile(path));
    auto documents = api::codec::DecodeYamlDocuments(text);
    if (documents.ok() && documents->size() == 1 &&
        (*documents)[0].value("kind", "") == "ConfigMap") {
      const json data = (*documents)[0].value("data", json::object());
      auto conf = data.find("volcano-scheduler.conf");
      if (conf == data.end() || !conf->is_string()) {
        return Status::InvalidArgument(path +
                                       ": the ConfigMap has no data key volcano-scheduler.conf");
      }
      text = conf->get<std::string>();
    }
  }
  auto conf = sched::ParseSchedulerConf(text, sched::BuiltinRegistry());
  if (!conf.ok()) return conf.status().WithContext(path.empty() ? "the default conf" : path);
  return conf;
}

Result<std::vector<sim::SimJob>> Trace(const std::string& path, std::string format,
                                       sim::OpenbQueues openb_queues) {
  ETNA_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  if (format == "auto") {
    if (std::filesystem::path(path).extension() == ".jsonl") {
      format = "jsonl";
    } else {
      std::string header = text.substr(0, text.find('\n'));
      format = header.find("creation_time") != std::string::npos ? "openb" : "csv";
    }
  }
  if (format != "openb" && openb_queues != sim::OpenbQueues::kDefault) {
    return Status::InvalidArgument(fmt::format(
        "--openb-queues qos: {} is a {} trace, whose jobs name their queues", path, format));
  }
  if (format == "jsonl") return sim::ParseJobJsonl(text, path);
  if (format == "csv") return sim::ParseJobCsv(text, path);
  ETNA_ASSIGN_OR_RETURN(std::vector<sim::TracePod> pods, sim::ParsePods(text, path));
  return sim::JobsFromOpenb(pods, openb_queues);
}

int RunReplay(Invocation& inv) {
  const std::string format = inv.Get("format");
  if (format != "auto" && format != "csv" && format != "jsonl" && format != "openb") {
    return inv.UsageError("invalid --format \"" + format + "\": want auto, csv, jsonl or openb");
  }
  const std::string openb_queues = inv.Get("openb-queues");
  if (openb_queues != "default" && openb_queues != "qos") {
    return inv.UsageError("invalid --openb-queues \"" + openb_queues + "\": want default or qos");
  }
  sim::SimOptions options;
  for (auto [flag, field] :
       {std::pair{"cycle", &options.cycle_period_ms},
        std::pair{"sample", &options.sample_period_ms},
        std::pair{"checkpoint-interval", &options.default_checkpoint_interval_ms}}) {
    auto d = ParseSpan(flag, inv.Get(flag));
    if (!d.ok()) return inv.UsageError(d.status().message());
    *field = d->count();
  }
  if (options.cycle_period_ms <= 0 || options.sample_period_ms <= 0) {
    return inv.UsageError("--cycle and --sample must be positive");
  }
  const std::string trace_path = inv.Get("trace"), out = inv.Get("out");
  if (trace_path.empty() || out.empty()) return inv.UsageError("--trace and --out are required");
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "etna sim replay: %s\n", s.message().c_str());
    return 1;
  };
  auto jobs = Trace(trace_path, format,
                    openb_queues == "qos" ? sim::OpenbQueues::kQos : sim::OpenbQueues::kDefault);
  if (!jobs.ok()) return fail(jobs.status());
  auto nodes = ClusterNodes(inv.Get("cluster"));
  if (!nodes.ok()) return fail(nodes.status());
  auto queues = Queues(inv.Get("queues"));
  if (!queues.ok()) return fail(queues.status());
  auto conf = Conf(inv.Get("conf"));
  if (!conf.ok()) return fail(conf.status());
  const auto t0 = std::chrono::steady_clock::now();
  auto result = sim::Simulate(*nodes, *queues, *conf, *jobs, options);
  if (!result.ok()) return fail(result.status());
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  const sim::ReportRun run{
      std::filesystem::path(inv.Get("conf").empty() ? "default conf" : inv.Get("conf"))
          .filename()
          .string(),
      sim::JobsCsv(*result), sim::SeriesCsv(*result)};
  auto report = sim::HtmlReport("etna sim replay: " + trace_path, {run});
  if (!report.ok()) return fail(report.status());
  for (auto [name, text] :
       {std::pair{"jobs.csv", run.jobs_csv}, std::pair{"series.csv", run.series_csv},
        std::pair{"report.html", *report}}) {
    if (Status s = WriteFileAtomically(out + "/" + name, text, 0644); !s.ok()) return fail(s);
  }
  int started = 0, finished = 0;
  for (const sim::JobOutcome& j : result->jobs) {
    started += j.first_start_ms >= 0 ? 1 : 0;
    finished += j.end_ms >= 0 ? 1 : 0;
  }
  const double days = static_cast<double>(result->end_ms - result->start_ms) / 86'400'000.0;
  std::printf(
      "SIM trace=%s jobs=%zu started=%d finished=%d virtual_days=%.2f cycles=%lld wall_s=%.2f "
      "events_per_s=%.0f out=%s\n",
      std::filesystem::path(trace_path).stem().c_str(), result->jobs.size(), started, finished,
      days, static_cast<long long>(result->cycles), wall_s,
      wall_s > 0 ? static_cast<double>(result->events) / wall_s : 0.0, out.c_str());
  return 0;
}

const Command& ReplayCommand() {
  static const Command command = {
      "sim replay",
      "replay a job trace in virtual time through the scheduling core and a configuration",
      "etna sim replay --trace FILE --out DIR [--conf FILE] [--queues FILE] [--cluster FILE] "
      "[flags]",
      "Jobs arrive at their submit time, start when a cycle binds their whole gang, run for\n"
      "their duration; a preempted job waits again and redoes the work since its last\n"
      "checkpoint. Cycles run at arrivals and ends (those within --cycle of each other share\n"
      "one), with the fair-share usage decayed over virtual time. Writes DIR/jobs.csv (submit,\n"
      "start, end, wait, JCT, preemptions per job) and DIR/series.csv (per queue: allocated and\n"
      "deserved GPUs, pending and running jobs, every --sample) and DIR/report.html. Trace\n"
      "formats: docs/simulator.md.",
      {
          {"trace", 0, "FILE", "the jobs: etna's CSV or JSON Lines, or an openb pod list"},
          {"format", 0, "FORMAT", "auto, csv, jsonl or openb", "auto"},
          {"openb-queues", 0, "RULE",
           "an openb trace's queues: default (all in one), qos (ls, be, burstable, guaranteed)",
           "default"},
          {"conf", 0, "FILE",
           "the scheduler configuration (volcano-scheduler.conf, or its ConfigMap); default: "
           "etna's"},
          {"queues", 0, "FILE", "Volcano Queue objects (YAML); default: one queue, default"},
          {"cluster", 0, "FILE",
           "a cluster profile (examples/clusters/dev.yaml) or an openb node list (.csv)",
           "testdata/openb/openb_node_list_gpu_node.csv"},
          {"out", 0, "DIR", "where jobs.csv, series.csv and report.html are written"},
          {"cycle", 0, "SPAN", "the least virtual time between two cycles", "10s"},
          {"sample", 0, "SPAN", "the period of series.csv", "1h"},
          {"checkpoint-interval", 0, "SPAN",
           "how often jobs without checkpoint_s save their work (0: a preempted job starts over)",
           "0"},
      },
      /*connects=*/false,
      RunReplay,
      /*takes_args=*/false};
  return command;
}

int RunCompare(Invocation& inv) {
  if (inv.args().size() != 2) return inv.UsageError("want two replay output folders: A B");
  const std::string out = inv.Get("out");
  if (out.empty()) return inv.UsageError("--out is required");
  std::vector<std::string> labels;
  for (const std::string& dir : inv.args()) {
    std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
    if (!p.has_filename()) p = p.parent_path();  // "off/"
    labels.push_back(p.filename().string());
  }
  if (inv.Has("labels")) {
    labels = SplitCommaList(inv.Get("labels"));
    if (labels.size() != 2) return inv.UsageError("--labels wants two names: A,B");
  }
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "etna sim compare: %s\n", s.message().c_str());
    return 1;
  };
  std::vector<sim::ReportRun> runs;
  for (size_t i = 0; i < 2; ++i) {
    const std::string& dir = inv.args()[i];
    auto jobs = ReadFile(dir + "/jobs.csv");
    auto series = ReadFile(dir + "/series.csv");
    if (!jobs.ok()) return fail(jobs.status());
    if (!series.ok()) return fail(series.status());
    runs.push_back({labels[i], *jobs, *series});
  }
  auto report = sim::HtmlReport(inv.Get("title"), runs);
  if (!report.ok()) return fail(report.status());
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (Status s = WriteFileAtomically(out + "/report.html", *report, 0644); !s.ok()) return fail(s);
  auto summary = sim::SummaryLines(runs);
  if (!summary.ok()) return fail(summary.status());
  std::fputs(summary->c_str(), stdout);
  std::printf("report: %s/report.html\n", out.c_str());
  return 0;
}

const Command& CompareCommand() {
  static const Command command = {
      "sim compare",
      "two replays' report side by side (what a configuration change does)",
      "etna sim compare DIR_A DIR_B --out DIR [--labels A,B] [--title TEXT]",
      "Reads the jobs.csv and series.csv of two `etna sim replay` output folders and writes\n"
      "DIR/report.html with both: per-queue waits, CDFs (B dashed), allocation, utilization\n"
      "and fairness over time. Prints one line per run and queue.",
      {
          {"out", 0, "DIR", "where report.html is written"},
          {"labels", 0, "A,B", "the runs' names (default: the folders' names)"},
          {"title", 0, "TEXT", "the page's title", "etna sim compare"},
      },
      /*connects=*/false,
      RunCompare,
      /*takes_args=*/true};
  return command;
}

int RunGenerate(Invocation& inv) {
  sim::GeneratorOptions options;
  options.shape = inv.Get("shape");
  std::optional<int> days = inv.Int("days", 1), gpus = inv.Int("gpus", 1),
                     seed = inv.Int("seed", 0);
  if (!days || !gpus || !seed) return kUsageExitCode;
  options.days = *days;
  options.gpus = *gpus;
  options.seed = static_cast<uint64_t>(*seed);
  if (options.shape == "bursty-steady" && inv.Has("seed")) {
    return inv.UsageError("--seed: the bursty-steady shape draws nothing at random");
  }
  auto jobs = sim::GenerateTrace(options);
  if (!jobs.ok()) return inv.UsageError(jobs.status().message());
  const std::string csv = sim::JobCsv(*jobs);
  if (inv.Get("out").empty()) {
    std::fputs(csv.c_str(), stdout);
  } else if (Status s = WriteFileAtomically(inv.Get("out"), csv, 0644); !s.ok()) {
    std::fprintf(stderr, "etna sim generate: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}

const Command& GenerateCommand() {
  static const Command command = {
      "sim generate",
      "write a synthetic job trace for `etna sim replay`",
      "etna sim generate [--shape seed|bursty-steady] [--days N] [--gpus N] [--seed N] "
      "[--out FILE]",
      "seed: training gangs of 1-64 GPUs running hours to weeks, inference services and bursts\n"
      "of small experiments, sized to the cluster's GPUs. bursty-steady: a queue that bursts\n"
      "every morning beside one that runs steadily (the fair-share-over-time comparison).\n"
      "The trace is etna's job CSV (docs/simulator.md).",
      {
          {"shape", 0, "SHAPE", "seed or bursty-steady", "seed"},
          {"days", 0, "N", "the trace's length", "7"},
          {"gpus", 0, "N", "the cluster's GPUs the load is sized to", "64"},
          {"seed", 0, "N", "the random seed (the seed shape)", "42"},
          {"out", 0, "FILE", "where to write the CSV (default: standard output)"},
      },
      /*connects=*/false,
      RunGenerate,
      /*takes_args=*/false};
  return command;
}

}  // namespace

int RunSimReplay(int argc, char** argv) { return RunCommand(ReplayCommand(), 2, argc, argv); }
int RunSimGenerate(int argc, char** argv) { return RunCommand(GenerateCommand(), 2, argc, argv); }
int RunSimCompare(int argc, char** argv) { return RunCommand(CompareCommand(), 2, argc, argv); }

}  // namespace etna::cli
