#include "cli/flags.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/resource.h>

#include "common/strings.h"
#include "common/time.h"

namespace etna::cli {

Result<std::chrono::milliseconds> ParseDuration(const std::string& text) {
  auto d = etna::ParseGoDuration(text);
  if (!d.ok() || d->count() <= 0) {
    return Status::InvalidArgument(
        fmt::format("\"{}\" is not a duration such as 500ms, 2s or 1m", text));
  }
  return std::chrono::milliseconds(CeilMilliseconds(*d));
}

void RaiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

Result<bool> ParseBoolFlag(const std::string& text) {
  if (auto b = ParseBool(text)) return *b;
  return Status::InvalidArgument(fmt::format("\"{}\" is not true or false", text));
}

Result<TimeZone> ParseTimeZone(const std::string& text) {
  return text.empty() ? TimeZone::Host() : TimeZone::Load(text);
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
