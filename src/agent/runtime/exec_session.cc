#include "agent/runtime/exec_session.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "agent/runtime/command.h"

namespace etna::agent::runtime {

Result<std::unique_ptr<ExecSession>> ExecSession::Start(const ProbeTarget& target,
                                                        const ExecRequest& request) {
  if (request.command.empty()) {
    return Status::InvalidArgument("command: required (at least one word)");
  }
  std::vector<std::string> words = target.exec_prefix;
  // In a container, runc makes the command's terminal (in the container's /dev/pts) and
  // relays it to its own stdio, our terminal; it follows our terminal's size (SIGWINCH).
  if (request.tty && !words.empty()) {
    auto exec = std::find(words.begin(), words.end(), "exec");
    if (exec == words.end()) return Status::Internal("the container's exec prefix has no exec");
    words.insert(exec + 1, "--tty");
  }
  words.insert(words.end(), request.command.begin(), request.command.end());
  ExecVectors exec(std::move(words), target.env);
  char** argv = exec.argv();
  char** envp = exec.envp();
  bool has_env = target.exec_prefix.empty();  // a host process: the container's environment

  std::unique_ptr<ExecSession> s(new ExecSession());
  s->tty_ = request.tty;
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  int master = -1, slave = -1;
  auto close_all = [&] {
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1], master, slave}) {
      if (fd >= 0) close(fd);
    }
  };
  if (request.tty) {
    if (openpty(&master, &slave, nullptr, nullptr, nullptr) != 0) {
      return Status::Internal(fmt::format("openpty: {}", std::strerror(errno)));
    }
    fcntl(master, F_SETFD, FD_CLOEXEC);
    fcntl(slave, F_SETFD, FD_CLOEXEC);  // no other child may hold the terminal open
  } else if ((request.stdin && pipe2(in, O_CLOEXEC) != 0) || pipe2(out, O_CLOEXEC) != 0 ||
             pipe2(err, O_CLOEXEC) != 0) {
    close_all();
    return Status::Internal(fmt::format("pipe: {}", std::strerror(errno)));
  }
  pid_t pid = fork();
  if (pid < 0) {
    close_all();
    return Status::Internal(fmt::format("fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    setsid();
    if (request.tty) {
      ioctl(slave, TIOCSCTTY, 0);
      dup2(slave, 0);
      dup2(slave, 1);
      dup2(slave, 2);
      if (slave > 2) close(slave);
    } else {
      int null = open("/dev/null", O_RDONLY);
      dup2(request.stdin ? in[0] : null, 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
    }
    if (!target.working_dir.empty() && chdir(target.working_dir.c_str()) != 0) _exit(126);
    if (has_env) {
      execvpe(argv[0], argv, envp);
    } else {
      execvp(argv[0], argv);
    }
    dprintf(2, "exec %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  s->pid_ = pid;
  if (request.tty) {
    close(slave);
    s->stdout_fd_ = master;
    s->stdin_fd_ = request.stdin ? fcntl(master, F_DUPFD_CLOEXEC, 0) : -1;
  } else {
    if (request.stdin) {
      close(in[0]);
      s->stdin_fd_ = in[1];
    }
    close(out[1]);
    close(err[1]);
    s->stdout_fd_ = out[0];
    s->stderr_fd_ = err[0];
  }
  return s;
}

ExecSession::~ExecSession() {
  Kill();
  for (int i = 0; i < 20 && !Exited(); ++i) usleep(100'000);
  if (!Exited()) Kill(SIGKILL);  // ends runc, if not the command it was running
  Wait();
  for (int fd : {stdin_fd_, stdout_fd_, stderr_fd_}) {
    if (fd >= 0) close(fd);
  }
}

void ExecSession::CloseStdin() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stdin_fd_ < 0) return;
  if (tty_) {
    char eof = 4;  // ^D: the terminal's end of input
    (void)!write(stdin_fd_, &eof, 1);
    return;
  }
  close(stdin_fd_);
  stdin_fd_ = -1;
}

void ExecSession::Resize(int width, int height) {
  if (!tty_ || width <= 0 || height <= 0) return;
  winsize size{};
  size.ws_col = static_cast<unsigned short>(width);
  size.ws_row = static_cast<unsigned short>(height);
  ioctl(stdout_fd_, TIOCSWINSZ, &size);
}

int ExecSession::Wait() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (waited_ || pid_ <= 0) return exit_code_;  // never waitpid(-1): any child of the agent
  }
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, 0);
  } while (r < 0 && errno == EINTR);
  std::lock_guard<std::mutex> lock(mu_);
  if (!waited_ && r == pid_) {
    waited_ = true;
    { exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }
  }
  return exit_code_;
}

bool ExecSession::Exited() {
  std::lock_guard<std::mutex> lock(mu_);
  if (waited_ || pid_ <= 0) return true;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
  waited_ = true;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return true;
}

void ExecSession::Kill(int signal) {
  std::lock_guard<std::mutex> lock(mu_);
  if (waited_ || pid_ <= 0) return;
  if (signal != 0) {
    kill(-pid_, signal);
    return;
  }
  kill(-pid_, SIGHUP);
  kill(-pid_, SIGTERM);
}

}  // namespace etna::agent::runtime
