// What the daemon subcommands (server, dev, scheduler, controllers, agent) share besides their
// flags (declared with cli/kit/command.h): a positive duration flag, a true/false flag, a time
// zone flag, the host of a --listen address, waiting for the signal that stops them, and the
// open-file limit they raise.
// Stateless functions.
#pragma once

#include <chrono>
#include <string>

#include "common/status.h"
#include "common/time_zone.h"

namespace etna::cli {

// A positive Go duration ("500ms", "2s", "1m", "1.5s"), rounded up to whole milliseconds.
// Errors name the text.
Result<std::chrono::milliseconds> ParseDuration(const std::string& text);

// A true/false flag value, read as Go's strconv.ParseBool reads it (kube-apiserver's
// --watch-cache=false). Errors name the text.
Result<bool> ParseBoolFlag(const std::string& text);

// A --time-zone value: an IANA zone name ("Europe/Berlin", "UTC"); "" is the host's zone.
// Errors name the text and say what is wanted.
Result<TimeZone> ParseTimeZone(const std::string& text);

// The host of a --listen HOST:PORT value ("127.0.0.1:8080" → "127.0.0.1").
std::string HostOf(const std::string& listen);

// Raises the soft limit on open files to the hard limit (as Go programs and kube-apiserver do):
// a server holding 10,000 watches needs more than the usual 1,024.
void RaiseOpenFileLimit();

// Blocks SIGINT and SIGTERM in the calling thread (call before starting threads, so every
// thread inherits the mask) and, in WaitForStopSignal, returns the name of the one that came.
void BlockStopSignals();
const char* WaitForStopSignal();

}  // namespace etna::cli
