// Daemons: the etna processes a benchmark starts (`etna server`, `etna scheduler`,
// `etna controllers`), each a child process with its output in a log file, stopped with SIGTERM
// (SIGKILL after a grace period) when the Daemon goes. Also the probes a benchmark reads off
// them: peak resident memory and a free loopback port.
// Thread-safety: none; one owner.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "common/status.h"

namespace etna::bench {

class Daemon {
 public:
  // Starts argv[0] with `argv`, stdout and stderr appended to `log_path`.
  static Result<Daemon> Spawn(std::string name, const std::vector<std::string>& argv,
                              const std::string& log_path);
  Daemon(Daemon&& other) noexcept;
  Daemon& operator=(Daemon&&) = delete;
  Daemon(const Daemon&) = delete;
  ~Daemon() { Stop(); }

  // Waits until the log contains `needle` and returns the rest of that line after it; an error
  // naming the daemon and the log's tail when it exited first or `timeout` passed.
  Result<std::string> WaitForLog(const std::string& needle, std::chrono::milliseconds timeout);
  // Peak resident set (VmHWM) in MiB; 0 once stopped.
  double PeakRssMb() const;
  // User + system CPU time so far, in seconds; 0 once stopped.
  double CpuSeconds() const;
  void Stop();
  pid_t pid() const { return pid_; }

 private:
  Daemon(std::string name, pid_t pid, std::string log_path)
      : name_(std::move(name)), pid_(pid), log_path_(std::move(log_path)) {}
  std::string LogTail() const;

  std::string name_;
  pid_t pid_ = -1;
  std::string log_path_;
};

// A loopback TCP port free at the time of the call.
Result<uint16_t> FreeLoopbackPort();

}  // namespace etna::bench
