// Prints the jobs of the e2e benchmark's workload (bench/volcano_workload.h), one per line, for
// scripts/bench-slurm.sh to submit the same jobs to Slurm.
// Usage: bench_workload [--jobs 10000] [--seed 42]
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/volcano_workload.h"

int main(int argc, char** argv) {
  int jobs = 10000;
  unsigned long long seed = 42;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "--jobs" || a == "--seed") && i + 1 < argc) {
      char* end = nullptr;
      unsigned long long v = std::strtoull(argv[++i], &end, 10);
      if (*end != '\0' || (a == "--jobs" && (v == 0 || v > 10000000))) {
        std::fprintf(stderr, "bench_workload: %s wants a number (jobs 1..10000000)\n", a.c_str());
        return 2;
      }
      if (a == "--jobs") {
        jobs = static_cast<int>(v);
      } else {
        seed = v;
      }
    } else {
      std::fprintf(stderr, "bench_workload: unknown flag %s (--jobs N --seed N)\n", a.c_str());
      return 2;
    }
  }
  std::fputs(etna::bench::WorkloadLines(etna::bench::VolcanoBenchWorkload(jobs, seed)).c_str(),
             stdout);
  return 0;
}
