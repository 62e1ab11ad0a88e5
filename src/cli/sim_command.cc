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
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "sim/replay.h"
#include "sim/report.h"
#include "sim/trace.h"

namespace etna::cli {
namespace {

void Usage() {
  std::fprintf(stderr,
               "Usage: etna sim openb [--data DIR] [--nodes FILE] [--pods FILE|NAME]\n"
               "                      [--policy P[,P...]] [--seeds 42-51] [--tune 1.3]\n"
               "                      [--out DIR] [--threads N]\n"
               "Policies: random, dotprod, gpuclustering, gpupacking, bestfit, fgd, etna\n");
}

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

int RunOpenb(int argc, char** argv) {
  std::string data;
  if (const char* env = std::getenv("ETNA_OPENB_DATA")) data = env;
  if (data.empty()) data = "testdata/openb";
  std::string nodes_path, pods_arg = "default", policies = "fgd", seeds_arg = "42-51", out;
  double tune = 1.3;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* dst) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "etna sim openb: %s needs a value\n", a.c_str());
        return false;
      }
      *dst = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--data") {
      if (!value(&data)) return 2;
    } else if (a == "--nodes") {
      if (!value(&nodes_path)) return 2;
    } else if (a == "--pods") {
      if (!value(&pods_arg)) return 2;
    } else if (a == "--policy") {
      if (!value(&policies)) return 2;
    } else if (a == "--seeds") {
      if (!value(&seeds_arg)) return 2;
    } else if (a == "--out") {
      if (!value(&out)) return 2;
    } else if (a == "--tune" || a == "--threads") {
      if (!value(&v)) return 2;
      try {
        if (a == "--tune") {
          tune = std::stod(v);
        } else {
          threads = std::max(1, std::stoi(v));
        }
      } catch (...) {
        std::fprintf(stderr, "etna sim openb: bad %s \"%s\"\n", a.c_str(), v.c_str());
        return 2;
      }
    } else if (a == "-h" || a == "--help") {
      Usage();
      return 0;
    } else {
      std::fprintf(stderr, "etna sim openb: unknown flag \"%s\"\n", a.c_str());
      Usage();
      return 2;
    }
  }
  std::vector<uint64_t> seeds;
  if (!ParseSeeds(seeds_arg, &seeds)) {
    std::fprintf(stderr, "etna sim openb: bad --seeds \"%s\" (e.g. 42-51 or 42,43)\n",
                 seeds_arg.c_str());
    return 2;
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
    if (!p.ok()) {
      std::fprintf(stderr, "etna sim openb: %s\n", p.status().message().c_str());
      return 2;
    }
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
    run.tune = tune;
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
        sim::ReplayOptions o{policy, seeds[i], tune};
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

}  // namespace

int RunSim(int argc, char** argv) {
  if (argc < 2) {
    Usage();
    return 2;
  }
  std::string sub = argv[1];
  if (sub == "openb") return RunOpenb(argc - 1, argv + 1);
  std::fprintf(stderr, "etna sim: unknown simulation \"%s\" (known: openb)\n", sub.c_str());
  return 2;
}

}  // namespace etna::cli
