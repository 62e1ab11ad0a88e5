#include "agent/runtime/command.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace etna::agent::runtime {

Result<CommandResult> RunCommand(const std::vector<std::string>& args,
                                 const CommandOptions& options) {
  if (args.empty()) return Status::InvalidArgument("no command");
  // Everything the child needs is built before fork.
  ExecVectors exec(args, options.env);
  char** argv = exec.argv();
  char** envp = exec.envp();
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    return Status::Internal(fmt::format("pipe: {}", std::strerror(errno)));
  }
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(out[0]);
    close(out[1]);
    return Status::Internal(fmt::format("fork: {}", std::strerror(err)));
  }
  if (pid == 0) {
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    if (!options.working_dir.empty() && chdir(options.working_dir.c_str()) != 0) _exit(126);
    if (options.has_env) {
      execvpe(argv[0], argv, envp);
    } else {
      execvp(argv[0], argv);
    }
    const char* what = std::strerror(errno);
    ssize_t ignored = write(2, what, std::strlen(what));
    (void)ignored;
    _exit(127);
  }
  close(out[1]);
  CommandResult result;
  auto deadline = std::chrono::steady_clock::now() + options.timeout;
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;  // the deadline check above decides
    ssize_t n = read(out[0], buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // every writer closed: the command (and its children) are done
    size_t room = options.max_output - std::min(options.max_output, result.output.size());
    result.output.append(buf, std::min(room, static_cast<size_t>(n)));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (result.timed_out) {
    result.exit_code = 124;
  } else if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

}  // namespace etna::agent::runtime
