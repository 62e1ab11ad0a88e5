// ExecSession: one command run for `kubectl exec` inside a running container (the container's
// ExecTarget: `runc exec <id>` before the command, or the host process's environment and
// directory), with pipes for stdin/stdout/stderr or one pseudo-terminal for all three (tty).
// The agent's terminal comes from openpty; a host process gets its slave, and in a container
// `runc exec --tty` makes the command's terminal (in the container's /dev/pts) and relays it to
// its own stdio, that slave, following its size (SIGWINCH). The agent keeps the master, so
// resizing is an ioctl on it.
// Thread-safety: each fd is used by one thread (the caller's reader and writer threads); Wait,
// Resize, CloseStdin and Kill may be called from any thread.
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "agent/runtime/probe.h"
#include "common/status.h"

namespace etna::agent::runtime {

struct ExecRequest {
  std::vector<std::string> command;
  bool stdin = false;
  bool tty = false;
};

class ExecSession {
 public:
  // Starts `request.command` in `target`'s container. InvalidArgument for an empty command,
  // Internal when it cannot be started.
  static Result<std::unique_ptr<ExecSession>> Start(const ProbeTarget& target,
                                                    const ExecRequest& request);
  ~ExecSession();  // kills the command if it still runs, closes the fds

  // Where the command's input goes (-1 without stdin); with a tty, the terminal's master.
  int stdin_fd() const { return stdin_fd_; }
  // The command's output (the terminal's master with a tty); stderr_fd is -1 with a tty.
  int stdout_fd() const { return stdout_fd_; }
  int stderr_fd() const { return stderr_fd_; }
  bool tty() const { return tty_; }

  // End of input: closes the stdin pipe (with a tty, sends the terminal's end-of-file).
  void CloseStdin();
  void Resize(int width, int height);
  // Blocks until the command ends; its exit code (128 + signal when killed).
  int Wait();
  // Signals the command's process group: by default SIGHUP then SIGTERM (runc exec passes
  // those on to the command in the container); SIGKILL ends runc itself.
  void Kill(int signal = 0);

 private:
  ExecSession() = default;
  bool Exited();  // reaps the command if it has ended
  pid_t pid_ = -1;
  bool tty_ = false;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::mutex mu_;
  bool waited_ = false;
  int exit_code_ = 0;
};

}  // namespace etna::agent::runtime
