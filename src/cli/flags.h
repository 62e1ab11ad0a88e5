// What the daemon subcommands (server, dev, scheduler, controllers, agent) share: flag parsing
// (one loop shape and one set of error lines, so every command answers a missing value or an
// unknown flag the same way) and waiting for the signal that stops them.
//
//   FlagParser p("etna dev", argc, argv);
//   while (p.Next()) {
//     if (p.Is("--data-dir")) { if (!p.Value(&dir)) return 1; }
//     else return p.Unknown(PrintHelp);
//   }
//
// Thread-safety: plain value, one per command invocation.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "common/status.h"

namespace etna::cli {

class FlagParser {
 public:
  // argv[0] is the subcommand's name (as main passes it); flags start at argv[1].
  FlagParser(std::string command, int argc, char** argv)
      : command_(std::move(command)), argc_(argc), argv_(argv) {}

  // Advances to the next argument; false at the end.
  bool Next() { return ++i_ < argc_; }
  std::string flag() const { return argv_[i_]; }
  bool Is(const char* name) const { return flag() == name; }
  // Takes the flag's value; prints "<command>: <flag> needs a value" and returns false when
  // there is none.
  bool Value(std::string* out);
  // Like Value, then parses an integer >= min.
  bool IntValue(int* out, int min);
  // Prints "<command>: unknown flag "<flag>"" and the help to stderr; returns the exit code 1.
  int Unknown(void (*print_help)(FILE*));

 private:
  std::string command_;
  int argc_;
  char** argv_;
  int i_ = 0;
};

// A positive Go duration ("500ms", "2s", "1m", "1.5s"), rounded up to whole milliseconds.
// Errors name the text.
Result<std::chrono::milliseconds> ParseDuration(const std::string& text);

// The host of a --listen HOST:PORT value ("127.0.0.1:8080" → "127.0.0.1").
std::string HostOf(const std::string& listen);

// Blocks SIGINT and SIGTERM in the calling thread (call before starting threads, so every
// thread inherits the mask) and, in WaitForStopSignal, returns the name of the one that came.
void BlockStopSignals();
const char* WaitForStopSignal();

}  // namespace etna::cli
