#include "agent/runtime/shim.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "agent/runtime/command.h"
#include "agent/runtime/log_rotation.h"
#include "agent/runtime/log_times.h"
#include "agent/runtime/process_usage.h"
#include "common/file.h"

namespace etna::agent::runtime {
namespace {

TimeMs NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void WriteAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

// Waits for `pid` (a child, or an orphan this subreaper inherited), reaping any other process
// on the way (its status kept in `reaped` when given, in case it is waited for next) and noting
// the log's growth (and rotating the log past its cap) once a second; its wait status.
int WaitFor(pid_t pid, const sigset_t* chld, LogTimeRecorder* times, LogRotator* rotator,
            std::map<pid_t, int>* reaped) {
  for (;;) {
    if (reaped) {
      if (auto it = reaped->find(pid); it != reaped->end()) return it->second;
    }
    int status = 0;
    pid_t done = waitpid(-1, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno == ECHILD) return 0;
    if (done > 0 && reaped) (*reaped)[done] = status;
    if (done > 0 || (done < 0 && errno == EINTR)) continue;
    timespec second{1, 0};
    sigtimedwait(chld, nullptr, &second);  // a child's exit, or a second passed
    if (rotator->MaybeRotate()) {
      times->Restart(NowMs());
    } else {
      times->Record(NowMs());
    }
  }
}

// The processes the container left: this shim's descendants (the shim is a child subreaper,
// so they are reparented to it when their parent ends, even those that called setsid). Where the
// kernel cannot list a process's children, the other members of the shim's session (a scan of
// every process of the host), and only when the shim leads its session (StartShim makes it):
// run by hand, it would take its caller's session with it.
std::vector<pid_t> LeftBehind() {
  const pid_t self = getpid();
  std::vector<pid_t> out;
  if (Descendants(self, &out)) return out;
  out.clear();
  if (getsid(0) != self) return out;
  for (pid_t pid : SessionMembers(self)) {
    if (pid != self) out.push_back(pid);
  }
  return out;
}

// SIGKILLs what the container's main process left running when it ended (a background
// `sleep &`), as the end of a container's first process ends every process of its pid
// namespace. Repeated while any were found (one may have forked).
void KillWhatWasLeftBehind() {
  for (int round = 0; round < 10; ++round) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }  // those already ended (a zombie is still listed as a child)
    std::vector<pid_t> left = LeftBehind();
    if (left.empty()) return;
    for (pid_t pid : left) kill(pid, SIGKILL);
    timespec pause{0, 10'000'000};
    nanosleep(&pause, nullptr);
  }
}

pid_t ReadPid(const std::string& path) {
  std::ifstream in(path);
  long pid = 0;
  return in >> pid ? static_cast<pid_t>(pid) : 0;
}

// The last non-empty line of a file (what a failing command said last), at most 400 bytes.
std::string LastLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last.size() > 400 ? last.substr(last.size() - 400) : last;
}

}  // namespace

Status WriteExitFile(const std::string& path, const ExitRecord& r) {
  std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Internal(fmt::format("{}: {}", tmp, std::strerror(errno)));
  WriteAll(fd, fmt::format("{} {} {}\n{}", r.exit_code, r.finished_ms,
                           r.reason.empty() ? "Error" : r.reason, r.message));
  fsync(fd);
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Internal(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  return Status::Ok();
}

Result<ExitRecord> ReadExitFile(const std::string& path) {
  auto text = ReadFile(path);  // polled for every running container: no stream
  if (!text.ok()) return Status::NotFound(path);
  const size_t newline = text->find('\n');
  ExitRecord r;
  std::istringstream ls(text->substr(0, newline));
  if (!(ls >> r.exit_code >> r.finished_ms >> r.reason)) {
    return Status::InvalidArgument(fmt::format("{}: malformed", path));
  }
  if (newline != std::string::npos) r.message = text->substr(newline + 1);
  return r;
}

int RunShim(int argc, char** argv) {
  std::string reap_pid_file;
  int64_t log_max_bytes = 0;
  int log_max_files = 2;
  int dashes = 4;
  bool usage = argc < 6;
  while (!usage && dashes < argc && std::strcmp(argv[dashes], "--") != 0) {
    std::string flag = argv[dashes];
    if (dashes + 1 >= argc) {
      usage = true;
    } else if (flag == "--reap") {
      reap_pid_file = argv[dashes + 1];
    } else if (flag == "--log-max-bytes") {
      log_max_bytes = std::atoll(argv[dashes + 1]);
    } else if (flag == "--log-max-files") {
      log_max_files = std::atoi(argv[dashes + 1]);
    } else {
      usage = true;
    }
    dashes += 2;
  }
  if (usage || dashes + 1 >= argc) {
    std::fprintf(stderr,
                 "usage: etna agent-shim EXIT_FILE LOG_FILE WORKDIR [--reap PID_FILE] "
                 "[--log-max-bytes N --log-max-files N] -- COMMAND...\n");
    return 2;
  }
  std::string exit_file = argv[1], log_file = argv[2], workdir = argv[3];
  char** command = argv + dashes + 1;
  // As a subreaper this shim inherits whatever the container leaves behind: the real process a
  // command started and left (`runc run -d`), which it then waits for, or what is left running
  // when the main process ends, which it then kills (KillWhatWasLeftBehind).
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  signal(SIGTERM, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGPIPE, SIG_DFL);
  int log = open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) {
    WriteExitFile(exit_file, {128, NowMs(), "StartError",
                              fmt::format("log {}: {}", log_file, std::strerror(errno))})
        .ok();
    return 1;
  }
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) return 1;
  // SIGCHLD stays blocked here so the wait below can also wake once a second (sigtimedwait)
  // to note the log's growth; the command gets the mask it would have had.
  sigset_t chld, before;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigprocmask(SIG_BLOCK, &chld, &before);
  LogTimeRecorder times(log_file);
  times.Record(NowMs());
  LogRotator rotator(log_file, log_max_bytes, log_max_files);
  pid_t child = fork();
  if (child < 0) {
    WriteExitFile(exit_file,
                  {128, NowMs(), "StartError", fmt::format("fork: {}", std::strerror(errno))})
        .ok();
    return 1;
  }
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &before, nullptr);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    dup2(log, 1);
    dup2(log, 2);
    int err = 0;
    const char* what = "chdir";
    if (chdir(workdir.c_str()) != 0) {
      err = errno;
    } else {
      execvp(command[0], command);
      err = errno;
      what = "exec";
    }
    std::string msg =
        fmt::format("{} {}: {}", what, what[0] == 'c' ? workdir : command[0], std::strerror(err));
    WriteAll(pipefd[1], msg);
    _exit(127);
  }
  close(pipefd[1]);
  std::string start_error;
  char buf[512];
  for (;;) {
    ssize_t n = read(pipefd[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    start_error.append(buf, static_cast<size_t>(n));
  }
  close(pipefd[0]);
  // Only the process a --reap command leaves is waited for after the command: without --reap,
  // the orphans reaped on the way are forgotten (a long-lived container may leave many).
  std::map<pid_t, int> reaped;
  std::map<pid_t, int>* keep = reap_pid_file.empty() ? nullptr : &reaped;
  int status = WaitFor(child, &chld, &times, &rotator, keep);
  if (!reap_pid_file.empty() && start_error.empty()) {
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      start_error = fmt::format("{} failed: {}", command[0], LastLine(log_file));
    } else if (pid_t pid = ReadPid(reap_pid_file); pid <= 0) {
      start_error = fmt::format("{}: no process id in {}", command[0], reap_pid_file);
    } else {
      status = WaitFor(pid, &chld, &times, &rotator, keep);
    }
  } else if (reap_pid_file.empty()) {
    KillWhatWasLeftBehind();
  }
  ExitRecord r;
  r.finished_ms = NowMs();
  if (!start_error.empty()) {
    r.exit_code = 128;
    r.reason = "StartError";
    r.message = start_error;
    WriteAll(log, "etna: " + start_error + "\n");
  } else if (WIFEXITED(status)) {
    r.exit_code = WEXITSTATUS(status);
    r.reason = r.exit_code == 0 ? "Completed" : "Error";
  } else if (WIFSIGNALED(status)) {
    r.exit_code = 128 + WTERMSIG(status);
    r.reason = "Error";
    r.message = fmt::format("killed by signal {}", WTERMSIG(status));
  }
  close(log);
  times.Record(NowMs());
  return WriteExitFile(exit_file, r).ok() ? 0 : 1;
}

Result<pid_t> StartShim(const ShimLaunch& launch) {
  std::vector<std::string> args = {launch.shim_binary, "agent-shim", launch.exit_file,
                                   launch.log_file, launch.working_dir};
  if (!launch.reap_pid_file.empty()) {
    args.push_back("--reap");
    args.push_back(launch.reap_pid_file);
  }
  if (launch.log_max_bytes > 0) {
    args.insert(args.end(), {"--log-max-bytes", std::to_string(launch.log_max_bytes),
                             "--log-max-files", std::to_string(launch.log_max_files)});
  }
  args.push_back("--");
  args.insert(args.end(), launch.argv.begin(), launch.argv.end());
  ExecVectors exec(std::move(args), launch.env);
  // posix_spawn, not fork: glibc starts the child in the agent's address space (CLONE_VFORK)
  // until it execs, so no page tables are copied and the agent's threads take no copy-on-write
  // faults afterwards; in `etna dev`, whose one process holds the API server too, forks had
  // made starting pods the most expensive thing it did. The shim leads its own session, with
  // no signal blocked or handled, /dev/null on 0-2 (never the agent's output) and no other fd.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDWR, 0);
  posix_spawn_file_actions_adddup2(&files, 0, 1);
  posix_spawn_file_actions_adddup2(&files, 0, 2);
  posix_spawn_file_actions_addclosefrom_np(&files, 3);
  pid_t pid = -1;
  int err = posix_spawn(&pid, exec.argv()[0], &files, &attr, exec.argv(), exec.envp());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (err != 0) {
    return Status::Internal(fmt::format("exec {}: {}", launch.shim_binary, std::strerror(err)));
  }
  return pid;
}

long long ProcessStartTicks(pid_t pid) {
  std::optional<ProcessStat> stat = ReadProcessStat(pid);
  return stat ? stat->start_ticks : -1;
}

bool ReapIfChild(pid_t pid) {
  if (pid <= 0) return true;
  int status;
  pid_t r;
  do {
    r = waitpid(pid, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  return r != 0;
}

}  // namespace etna::agent::runtime
