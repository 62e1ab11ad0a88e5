#include "cli/flags.h"

#include <fmt/format.h>
#include <signal.h>

#include <charconv>
#include <cmath>

#include "common/time.h"

namespace etna::cli {

bool FlagParser::Value(std::string* out) {
  std::string name = flag();
  if (i_ + 1 >= argc_) {
    std::fprintf(stderr, "%s: %s needs a value\n", command_.c_str(), name.c_str());
    return false;
  }
  *out = argv_[++i_];
  return true;
}

bool FlagParser::IntValue(int* out, int min) {
  std::string name = flag();
  std::string text;
  if (!Value(&text)) return false;
  int value = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || p != text.data() + text.size() || value < min) {
    std::fprintf(stderr, "%s: %s: \"%s\" must be an integer >= %d\n", command_.c_str(),
                 name.c_str(), text.c_str(), min);
    return false;
  }
  *out = value;
  return true;
}

int FlagParser::Unknown(void (*print_help)(FILE*)) {
  std::fprintf(stderr, "%s: unknown flag \"%s\"\n", command_.c_str(), flag().c_str());
  print_help(stderr);
  return 1;
}

Result<std::chrono::milliseconds> ParseDuration(const std::string& text) {
  auto d = etna::ParseGoDuration(text);
  if (!d.ok() || d->count() <= 0) {
    return Status::InvalidArgument(
        fmt::format("\"{}\" is not a duration such as 500ms, 2s or 1m", text));
  }
  return std::chrono::milliseconds(CeilMilliseconds(*d));
}

namespace {

sigset_t StopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

void BlockStopSignals() {
  sigset_t signals = StopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

const char* WaitForStopSignal() {
  sigset_t signals = StopSignals();
  int sig = 0;
  sigwait(&signals, &sig);
  return sig == SIGINT ? "SIGINT" : "SIGTERM";
}

std::string HostOf(const std::string& listen) {
  size_t colon = listen.rfind(':');
  return colon == std::string::npos ? listen : listen.substr(0, colon);
}

}  // namespace etna::cli
