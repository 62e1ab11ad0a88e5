// What the processes of each container use, read from /proc: the CPU time and resident memory
// of every process in the container's session (the shim is the session leader, shim.h, so the
// command and whatever it starts are in it unless they call setsid themselves), found by walking
// the leader's descendants (/proc/<pid>/task/<tid>/children; every process of the host where
// the kernel lacks that file), and the host's totals for a real node (/proc/stat,
// /proc/meminfo).
// UsageSampler turns the cumulative CPU time into a rate, as the kubelet's summary reports it:
// over the interval since the previous sample of the same session (at least `min_interval_ms`
// apart, else the last rate is repeated), or since the session leader started for a first
// sample.
// Thread-safety: ReadSessions and ReadHost are pure readers; UsageSampler is not thread-safe.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "common/clock.h"

namespace etna::agent::runtime {

struct ProcessUsage {
  int64_t cpu_ns = 0;           // user + system time, cumulative
  int64_t rss_bytes = 0;        // resident memory (the working set a process runtime can see)
  int64_t leader_start_ms = 0;  // when the session leader started (epoch ms); 0: not found
};

// What /proc/<pid>/stat says of a process that the runtime uses.
struct ProcessStat {
  pid_t session = 0;
  int64_t cpu_ticks = 0;    // utime + stime
  int64_t start_ticks = 0;  // since boot
  int64_t rss_pages = 0;
};
// nullopt when there is no such live (non-zombie) process.
std::optional<ProcessStat> ReadProcessStat(pid_t pid);

// By session id, for the sessions in `sessions` that have at least one live process.
std::map<pid_t, ProcessUsage> ReadSessions(const std::set<pid_t>& sessions);

// Every live process of session `session`, wherever it was reparented (a scan of /proc).
std::vector<pid_t> SessionMembers(pid_t session);

// The processes below `root`: its children, theirs, and so on (/proc/<pid>/task/<tid>/children,
// a few reads per process found). False when the kernel does not provide that file.
bool Descendants(pid_t root, std::vector<pid_t>* out);

// The whole host: CPU time spent not idle (all CPUs) and memory in use (MemTotal −
// MemAvailable); leader_start_ms is the boot time.
ProcessUsage ReadHost();

// A CPU rate and the interval it was measured over.
struct CpuRate {
  int64_t nano_cores = 0;
  int64_t window_ms = 0;
};

class UsageSampler {
 public:
  explicit UsageSampler(TimeMs min_interval_ms = 1000) : min_interval_ms_(min_interval_ms) {}
  // The rate of `key` (a session id, or -1 for the host) at `now` given its cumulative usage.
  CpuRate Rate(int64_t key, const ProcessUsage& usage, TimeMs now);
  // Forgets keys not in `live` (sessions that ended).
  void Retain(const std::set<int64_t>& live);

 private:
  struct Sample {
    TimeMs at = 0;
    int64_t cpu_ns = 0;
    CpuRate rate;
  };
  TimeMs min_interval_ms_;
  std::map<int64_t, Sample> samples_;
};

}  // namespace etna::agent::runtime
