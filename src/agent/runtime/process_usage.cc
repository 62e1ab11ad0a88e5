#include "agent/runtime/process_usage.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "common/clock_steps.h"
#include "common/file.h"

namespace etna::agent::runtime {
namespace {

// Fields 6 (session), 14+15 (utime, stime), 22 (starttime) and 24 (rss) of /proc/<pid>/stat,
// read with ReadFile and parsed in place (the agent reads it for every container each second);
// false for a zombie or a process that is gone.
bool ReadStat(const std::string& pid, ProcessStat* out) {
  auto stat = ReadFile("/proc/" + pid + "/stat");
  if (!stat.ok()) return false;
  size_t close = stat->rfind(')');
  if (close == std::string::npos || close + 2 > stat->size()) return false;
  // Fields 3 (state) onwards follow the command's closing parenthesis, one space apart.
  std::string_view rest = std::string_view(*stat).substr(close + 2);
  *out = ProcessStat();
  for (int field = 3; field <= 24; ++field) {
    const size_t space = std::min(rest.find(' '), rest.size());
    const std::string_view text = rest.substr(0, space);
    if (text.empty()) return false;
    int64_t value = 0;
    std::from_chars(text.data(), text.data() + text.size(), value);
    if (field == 3 && (text == "Z" || text == "X")) return false;
    if (field == 6) out->session = static_cast<pid_t>(value);
    if (field == 14 || field == 15) out->cpu_ticks += value;
    if (field == 22) out->start_ticks = value;
    if (field == 24) out->rss_pages = value;
    rest.remove_prefix(std::min(space + 1, rest.size()));
  }
  return true;
}

// Calls `visit` with the pid and stat fields of every live process of the host.
template <class Visit>
void ForEachProcess(Visit visit) {
  DIR* proc = opendir("/proc");
  if (!proc) return;
  while (dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    ProcessStat f;
    if (ReadStat(e->d_name, &f)) visit(e->d_name, f);
  }
  closedir(proc);
}

int64_t BootTimeMs() {
  std::ifstream in("/proc/stat");
  std::string key;
  int64_t value = 0;
  while (in >> key) {
    if (key == "btime" && (in >> value)) return value * 1000;
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

int64_t TicksToNs(int64_t ticks) {
  static const int64_t hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  return ticks * (1'000'000'000 / hz);
}

}  // namespace

// The children of `pid`'s threads (/proc/<pid>/task/<tid>/children); false when the kernel does
// not provide the file.
bool ChildrenOf(pid_t pid, std::vector<pid_t>* out) {
  const std::string task = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(task.c_str());
  if (!dir) return true;  // gone
  bool supported = true;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    std::ifstream in(task + "/" + e->d_name + "/children");
    if (!in) {
      supported = false;
      break;
    }
    pid_t child;
    while (in >> child) out->push_back(child);
  }
  closedir(dir);
  return supported;
}

std::map<pid_t, ProcessUsage> ReadSessions(const std::set<pid_t>& sessions) {
  std::map<pid_t, ProcessUsage> out;
  if (sessions.empty()) return out;
  static const int64_t page = sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096;
  static const int64_t hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
  const int64_t boot_ms = BootTimeMs();
  auto add = [&](const std::string& pid, const ProcessStat& f) {
    ProcessUsage& u = out[f.session];
    u.cpu_ns += TicksToNs(f.cpu_ticks);
    u.rss_bytes += f.rss_pages * page;
    if (std::atol(pid.c_str()) == f.session)
      u.leader_start_ms = boot_ms + f.start_ticks * 1000 / hz;
  };
  // Each session's process tree from its leader (the shim): a few reads per container rather
  // than one per process on the host.
  bool walked = true;
  for (pid_t leader : sessions) {
    std::vector<pid_t> todo = {leader};
    std::set<pid_t> seen;
    while (walked && !todo.empty()) {
      pid_t pid = todo.back();
      todo.pop_back();
      if (!seen.insert(pid).second) continue;
      ProcessStat f;
      std::string name = std::to_string(pid);
      if (!ReadStat(name, &f) || f.session != leader) continue;
      add(name, f);
      walked = ChildrenOf(pid, &todo);
    }
  }
  if (walked) return out;
  // Without /proc/<pid>/task/<tid>/children: every process of the host.
  out.clear();
  ForEachProcess([&](const char* pid, const ProcessStat& f) {
    if (sessions.count(f.session)) add(pid, f);
  });
  return out;
}

std::optional<ProcessStat> ReadProcessStat(pid_t pid) {
  ProcessStat stat;
  if (pid <= 0 || !ReadStat(std::to_string(pid), &stat)) return std::nullopt;
  return stat;
}

bool Descendants(pid_t root, std::vector<pid_t>* out) {
  std::vector<pid_t> todo;
  if (!ChildrenOf(root, &todo)) return false;
  std::set<pid_t> seen;
  while (!todo.empty()) {
    pid_t pid = todo.back();
    todo.pop_back();
    if (!seen.insert(pid).second) continue;
    out->push_back(pid);
    if (!ChildrenOf(pid, &todo)) return false;
  }
  return true;
}

std::vector<pid_t> SessionMembers(pid_t session) {
  std::vector<pid_t> out;
  ForEachProcess([&](const char* pid, const ProcessStat& f) {
    if (f.session == session) out.push_back(static_cast<pid_t>(std::atol(pid)));
  });
  return out;
}

ProcessUsage ReadHost() {
  ProcessUsage u;
  u.leader_start_ms = BootTimeMs();
  std::ifstream stat("/proc/stat");
  std::string cpu;
  if (stat >> cpu && cpu == "cpu") {
    // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
    int64_t v[8] = {0};
    for (int64_t& x : v) stat >> x;
    u.cpu_ns = TicksToNs(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]);
  }
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  int64_t kib = 0, total = 0, available = 0;
  std::string unit;
  while (meminfo >> key >> kib) {
    std::getline(meminfo, unit);
    if (key == "MemTotal:") total = kib;
    if (key == "MemAvailable:") available = kib;
  }
  u.rss_bytes = (total - available) * 1024;
  return u;
}

CpuRate UsageSampler::Rate(int64_t key, const ProcessUsage& usage, TimeMs now) {
  auto it = samples_.find(key);
  if (it != samples_.end() && !AgedOut(now, it->second.at, min_interval_ms_) &&
      usage.cpu_ns >= it->second.cpu_ns) {
    return it->second.rate;
  }
  Sample next{now, usage.cpu_ns, {}};
  TimeMs since = 0;
  int64_t used = 0;
  if (it != samples_.end() && usage.cpu_ns >= it->second.cpu_ns && now > it->second.at) {
    since = now - it->second.at;
    used = usage.cpu_ns - it->second.cpu_ns;
  } else if (usage.leader_start_ms > 0 && now > usage.leader_start_ms) {
    since = now - usage.leader_start_ms;
    used = usage.cpu_ns;
  }
  if (since > 0)
    next.rate = {static_cast<int64_t>(static_cast<double>(used) * 1000.0 / since), since};
  samples_[key] = next;
  return next.rate;
}

void UsageSampler::Retain(const std::set<int64_t>& live) {
  for (auto it = samples_.begin(); it != samples_.end();) {
    it = live.count(it->first) ? std::next(it) : samples_.erase(it);
  }
}

}  // namespace etna::agent::runtime
