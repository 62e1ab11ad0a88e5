// Every subcommand's flags (`etna job run`, `etna get`, and the daemons `etna server`, `etna dev`,
// ...): each command declares its flags and help once, and the parser, `--help`, the top-level
// command list and the shell completion scripts are all generated from those declarations, so
// they cannot drift apart. A usage error (unknown flag, missing or bad value, unexpected
// argument) prints "error: ..." and the help hint and exits with kUsageExitCode (2).
// Invocation carries the parsed flags and, on first use, the connection to the API server.
// Not thread-safe (one invocation per process).
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/kit/api.h"

namespace etna::cli {

// The exit code of every usage error.
inline constexpr int kUsageExitCode = 2;

struct Flag {
  std::string name;        // long name without dashes: "namespace"
  char short_name = 0;     // 'n', or 0
  std::string value_name;  // "NAME"; empty for a boolean flag
  std::string help;
  std::string default_value;
  bool repeated = false;  // may be given more than once (-f a -f b)
};

class Invocation;

struct Command {
  std::string path;     // "job run"
  std::string summary;  // one line for the command list
  std::string usage;    // "etna job run -f FILE | -N NAME -i IMAGE [flags]"
  std::string details;  // optional paragraph(s) after the usage
  std::vector<Flag> flags;
  bool connects = true;  // gets --kubeconfig, -n/--namespace, -A/--all-namespaces
  std::function<int(Invocation&)> run;
  bool takes_args = true;  // false: a positional argument is a usage error (the daemons)
};

class Invocation {
 public:
  Invocation(const Command* command, std::map<std::string, std::vector<std::string>> values,
             std::vector<std::string> args);

  const Command& command() const { return *command_; }
  const std::vector<std::string>& args() const { return args_; }
  bool Has(const std::string& flag) const;
  // The last value given, or the flag's default.
  std::string Get(const std::string& flag) const;
  std::vector<std::string> GetAll(const std::string& flag) const;
  bool Bool(const std::string& flag) const { return Has(flag); }
  // The value (or default) as an integer / a number >= min; nullopt after printing the usage
  // error that names the flag.
  std::optional<int> Int(const std::string& flag, int min) const;
  std::optional<double> Number(const std::string& flag, double min) const;

  // The namespace to work in: -n, else the kubeconfig's, else "default".
  std::string Namespace();
  bool AllNamespaces() const { return Has("all-namespaces"); }
  // The API, connected on first use; nullptr after printing why it could not be (see
  // Api::Connect); commands then return 1.
  Api* api();

  // Prints "error: <message>" and the usage hint to stderr; returns kUsageExitCode.
  int UsageError(const std::string& message) const;
  // Prints `line` to stderr; returns 1.
  int Fail(const std::string& line) const;

 private:
  const Command* command_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> args_;
  std::unique_ptr<Api> api_;
  bool api_failed_ = false;
};

// Every user command; each group's file contributes its own (cmd/*.cc).
const std::vector<Command>& UserCommands();

// The top-level words of the user commands ("job", "get", ...), in order, with a summary.
std::vector<std::pair<std::string, std::string>> UserCommandGroups();

// Runs `etna <argv[1]> ...` when argv[1] names a user command; returns false otherwise.
bool RunUserCommand(int argc, char** argv, int* exit_code);
// Parses argv[first..argc) against `command`'s flags and runs it; `--help` prints CommandHelp.
// Returns the command's exit code, or kUsageExitCode after a usage error.
int RunCommand(const Command& command, int first, int argc, char** argv);

// The help of one command (`etna job run --help`).
std::string CommandHelp(const Command& command);
// `etna completion bash|zsh`.
std::string CompletionScript(const std::string& shell);

// Registration, one function per command group file.
void AddJobCommands(std::vector<Command>* out);
void AddQueueCommands(std::vector<Command>* out);
void AddGetCommands(std::vector<Command>* out);
void AddApplyCommands(std::vector<Command>* out);
void AddDescribeCommands(std::vector<Command>* out);
void AddLogsCommands(std::vector<Command>* out);
void AddGpuCommands(std::vector<Command>* out);
void AddUsageCommands(std::vector<Command>* out);
void AddExplainCommands(std::vector<Command>* out);
void AddCompletionCommands(std::vector<Command>* out);

}  // namespace etna::cli
