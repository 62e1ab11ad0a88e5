// `etna sim openb`: replays the openb trace (Alibaba cluster-trace-gpu-v2023, the FGD paper's
// workload) through the scheduling core and prints one OPENB line per policy.
//
//   etna sim openb [--data DIR] [--nodes FILE] [--pods FILE|NAME] [--policy P[,P...]]
//                  [--seeds 42-51|42,43] [--tune 1.3] [--out DIR] [--threads N]
//
// --data defaults to $ETNA_OPENB_DATA, else testdata/openb (the repository root's copy); --nodes to
// <data>/openb_node_list_gpu_node.csv; --pods to <data>/openb_pod_list_default.csv (a bare name
// such as "cpu050" means <data>/openb_pod_list_cpu050.csv). With --out, the per-seed curves are
// appended to <out>/analysis_{allo,frag,frag_ratio}_discrete.csv.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cli/kit/command.h"
#include "sim/replay.h"
#include "sim/report.h"
#include "sim/trace.h"

namespace etna::cli {
namespace {

bool ParseSeeds(const std::string& text, std::vector<uint64_t>* out) {
  size_t start = 0;
  while (start < text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string part = text.substr(start, comma - start);
    start = comma + 1;
    try {
      size_t dash = part.find('-');
      if (dash == std::string::npos) {
        out->push_back(std::stoull(part));
      } else {
        uint64_t a = std::stoull(part.substr(0, dash)), b = std::stoull(part.substr(dash + 1));
        if (b < a || b - a > 100000) return false;
        for (uint64_t s = a; s <= b; ++s) out->push_back(s);
      }
    } catch (...) {
      return false;
    }
  }
  return !out->empty();
}

int RunOpenb(Invocation& inv) {
  std::string data = inv.Get("data");
  if (data.empty()) {
    if (const char* env = std::getenv("ETNA_OPENB_DATA")) data = env;
  }
  if (data.empty()) data = "testdata/openb";
  std::string nodes_path = inv.Get("nodes"), pods_arg = inv.Get("pods");
  std::string policies = inv.Get("policy"), seeds_arg = inv.Get("seeds"), out = inv.Get("out");
  std::optional<double> tune = inv.Number("tune", std::numeric_limits<double>::lowest());
  if (!tune) return kUsageExitCode;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (inv.Has("threads")) {
    std::optional<int> n = inv.Int("threads", std::numeric_limits<int>::min());
    if (!n) return kUsageExitCode;
    threads = std::max(1, *n);
  }
  std::vector<uint64_t> seeds;
  if (!ParseSeeds(seeds_arg, &seeds)) {
    return inv.UsageError(fmt::format("bad --seeds \"{}\" (e.g. 42-51 or 42,43)", seeds_arg));
  }
  if (nodes_path.empty()) nodes_path = data + "/openb_node_list_gpu_node.csv";
  std::string pods_path = pods_arg;
  if (pods_arg.find('/') == std::string::npos && pods_arg.find(".csv") == std::string::npos) {
    pods_path = data + "/openb_pod_list_" + pods_arg + ".csv";
  }
  std::vector<sim::Policy> runs;
  for (size_t start = 0; start < policies.size();) {
    size_t comma = policies.find(',', start);
    if (comma == std::string::npos) comma = policies.size();
    auto p = sim::FindPolicy(policies.substr(start, comma - start));
    if (!p.ok()) return inv.UsageError(p.status().message());
    runs.push_back(*p);
    start = comma + 1;
  }
  auto nodes = sim::LoadNodes(nodes_path);
  if (!nodes.ok()) {
    std::fprintf(stderr, "etna sim openb: %s\n", nodes.status().message().c_str());
    return 1;
  }
  auto pods = sim::LoadPods(pods_path);
  if (!pods.ok()) {
    std::fprintf(stderr, "etna sim openb: %s\n", pods.status().message().c_str());
    return 1;
  }
  std::string workload = std::filesystem::path(pods_path).stem().string();

  int rc = 0;
  for (const auto& policy : runs) {
    auto t0 = std::chrono::steady_clock::now();
    sim::RunSummary run;
    run.workload = workload;
    run.policy = policy;
    run.tune = *tune;
    run.seeds.resize(seeds.size());
    std::vector<Status> errors(seeds.size());
    std::mutex mu;
    size_t next = 0;
    auto worker = [&] {
      while (true) {
        size_t i;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (next >= seeds.size()) return;
          i = next++;
        }
        sim::ReplayOptions o{policy, seeds[i], *tune};
        auto r = sim::Replay(*nodes, *pods, o);
        if (r.ok()) {
          run.seeds[i] = std::move(*r);
          run.seeds[i].events.clear();
          run.seeds[i].events.shrink_to_fit();
        } else {
          errors[i] = r.status();
        }
      }
    };
    std::vector<std::thread> pool;
    for (int k = 0; k < std::min<int>(threads, static_cast<int>(seeds.size())); ++k) {
      pool.emplace_back(worker);
    }
    for (auto& t : pool) t.join();
    for (const auto& e : errors) {
      if (!e.ok()) {
        std::fprintf(stderr, "etna sim openb: %s\n", e.message().c_str());
        return 1;
      }
    }
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!out.empty()) {
      if (Status s = sim::WriteCurves(out, run); !s.ok()) {
        std::fprintf(stderr, "etna sim openb: %s\n", s.message().c_str());
        rc = 1;
      }
    }
    std::printf("%s\n", sim::OpenbLine(run).c_str());
    std::fflush(stdout);
  }
  return rc;
}

const Command& OpenbCommand() {
  static const Command command = {
      "sim openb",
      "replay the openb trace through the scheduling core, one OPENB line per policy",
      "etna sim openb [--data DIR] [--nodes FILE] [--pods FILE|NAME] [--policy P[,P...]] "
      "[--seeds 42-51] [--tune 1.3] [--out DIR] [--threads N]",
      "Policies: random, dotprod, gpuclustering, gpupacking, bestfit, fgd, etna",
      {
          {"data", 0, "DIR", "the trace (default $ETNA_OPENB_DATA, else testdata/openb)"},
          {"nodes", 0, "FILE", "the node list (default <data>/openb_node_list_gpu_node.csv)"},
          {"pods", 0, "FILE|NAME", "the pod list; a bare NAME means <data>/openb_pod_list_NAME.csv",
           "default"},
          {"policy", 0, "P[,P...]", "the policies to replay", "fgd"},
          {"seeds", 0, "SEEDS", "seeds as a range or a list (42-51, 42,43)", "42-51"},
          {"tune", 0, "X", "the policy's tuning factor", "1.3"},
          {"out", 0, "DIR", "append the per-seed curves to <out>/analysis_*_discrete.csv"},
          {"threads", 0, "N", "replays in parallel (default: the number of CPUs)"},
      },
      /*connects=*/false,
      RunOpenb,
      /*takes_args=*/false};
  return command;
}

}  // namespace

// sim_timeline_commands.cc
int RunSimReplay(int argc, char** argv);
int RunSimGenerate(int argc, char** argv);
int RunSimCompare(int argc, char** argv);

int RunSim(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "openb") {
    return RunCommand(OpenbCommand(), 2, argc, argv);
  }
  if (argc >= 2 && std::string(argv[1]) == "replay") return RunSimReplay(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "generate") return RunSimGenerate(argc, argv);
  if (argc >= 2 && std::string(argv[1]) == "compare") return RunSimCompare(argc, argv);
  if (argc < 2) {
    std::fputs(
        "etna sim replay    a job trace in virtual time through the scheduler (--help)\n"
        "etna sim compare   two replays' report side by side\n"
        "etna sim generate  a synthetic job trace\n"
        "etna sim openb     openb's static packing experiment, one OPENB line per policy\n",
        stderr);
  } else {
    std::fprintf(stderr,
                 "etna sim: unknown simulation \"%s\" (known: openb, replay, compare, generate)\n",
                 argv[1]);
  }
  return kUsageExitCode;
}

}  // namespace etna::cli
