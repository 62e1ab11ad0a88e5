// The container supervisor. The agent never runs a container's command as its own child: it
// starts `etna agent-shim EXIT_FILE LOG_FILE WORKDIR -- ARGV...` in a new session (setsid) with
// the container's environment. The shim starts the command with stdout and stderr appended to
// LOG_FILE, waits for it and writes EXIT_FILE ("<code> <finished ms> <reason>\n<message>",
// atomically), so a container outlives an agent restart (or SIGKILL) and the next agent learns
// how it ended. The shim ignores SIGTERM/SIGINT/SIGHUP; the agent signals the whole process
// group (the shim's pid), which reaches the command; a SIGKILL of the group takes the shim too,
// and the agent then writes the exit file itself. While the command runs the shim notes when
// the log grew (log_times.h), for `logs --since`.
// Thread-safety: StartShim may be called from any thread (it forks; the child only calls
// async-signal-safe functions before exec).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace etna::agent::runtime {

// The shim's main: argv = {"agent-shim", exit_file, log_file, workdir, ["--reap", pid_file,]
// ["--log-max-bytes", n, "--log-max-files", n,] "--", command...}; with a log cap the log is
// rotated (log_rotation.h) when it grows past it. With --reap the command only starts the container
// and exits (`runc run -d --pid-file PID_FILE`): the shim, a child subreaper, then waits for the
// process PID_FILE names, which it inherited; the command's failure is a StartError with its last
// log line.
int RunShim(int argc, char** argv);

struct ShimLaunch {
  std::string shim_binary;  // an executable whose argv[1] "agent-shim" runs RunShim
  std::string exit_file;
  std::string log_file;
  std::string working_dir;
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::string reap_pid_file;  // non-empty: --reap
  int64_t log_max_bytes = 0;  // 0: the log grows without a cap
  int log_max_files = 5;      // with the current one
};

// Forks and execs the shim in its own session; the returned pid is also its process group.
// Internal (with errno's text) when fork or exec fails.
Result<pid_t> StartShim(const ShimLaunch& launch);

struct ExitRecord {
  int exit_code = 0;
  TimeMs finished_ms = 0;
  std::string reason;  // Completed, Error, StartError, OOMKilled, ...
  std::string message;
};

// Reads an exit file; NotFound while the container runs.
Result<ExitRecord> ReadExitFile(const std::string& path);
Status WriteExitFile(const std::string& path, const ExitRecord& record);

// The start time of a process (clock ticks since boot, /proc/<pid>/stat field 22), or -1 when
// no such live (non-zombie) process exists; used to tell a process from a later one that
// reused its pid.
long long ProcessStartTicks(pid_t pid);
// Reaps `pid` if it is this process's exited child; true when it is gone (reaped, or not a
// child of this process), false while it still runs.
bool ReapIfChild(pid_t pid);

}  // namespace etna::agent::runtime
