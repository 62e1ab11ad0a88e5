// Runs a short command to its end and collects what it printed: the agent's calls to runc,
// skopeo and umoci, and exec probes. The command runs in its own process group with stdin
// from /dev/null; past its timeout the whole group is killed.
// Thread-safety: any thread (each call forks its own child).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace etna::agent::runtime {

// argv and envp for an exec: the strings and the null-terminated pointer arrays into them,
// built before a fork (whose child may only call async-signal-safe code) or a posix_spawn.
class ExecVectors {
 public:
  ExecVectors(std::vector<std::string> args,
              const std::vector<std::pair<std::string, std::string>>& env)
      : args_(std::move(args)) {
    for (auto& a : args_) argv_.push_back(a.data());
    argv_.push_back(nullptr);
    for (const auto& [k, v] : env) env_strings_.push_back(k + "=" + v);
    for (auto& e : env_strings_) envp_.push_back(e.data());
    envp_.push_back(nullptr);
  }
  ExecVectors(const ExecVectors&) = delete;
  ExecVectors& operator=(const ExecVectors&) = delete;
  char** argv() { return argv_.data(); }
  char** envp() { return envp_.data(); }

 private:
  std::vector<std::string> args_, env_strings_;
  std::vector<char*> argv_, envp_;
};

struct CommandOptions {
  std::chrono::milliseconds timeout{60'000};
  // Replaces the environment when set (`has_env`); otherwise the agent's is inherited.
  bool has_env = false;
  std::vector<std::pair<std::string, std::string>> env;
  std::string working_dir;    // empty: the agent's
  size_t max_output = 65536;  // the first bytes of stdout and stderr together are kept
};

struct CommandResult {
  int exit_code = 0;  // 128 + signal when killed; 124 after the timeout (as timeout(1))
  std::string output;
  bool timed_out = false;
};

// Internal when the command cannot be started at all (fork fails); a command that is not
// found is exit code 127 with the reason in `output`.
Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                 const CommandOptions& options = {});

}  // namespace etna::agent::runtime
