// When each part of a container's log was written, so `logs --since` can skip older lines.
//
// The shim appends the log file's size with the time ("<bytes> <unix ms>\n") to a side file
// next to the log (<n>.times beside <n>.log) at start, about once a second while the log grows,
// and at exit. An entry (S, T) says: the first S bytes were written by T. So the bytes written
// since a cutoff C start at the size of the last entry older than C (rounded up to a line
// start): at most one recording interval of older lines is included, never a newer one left
// out. A log without a side file (written before it existed) is shown whole.
// Thread-safety: LogTimeRecorder is used by one thread (the shim); the functions are pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/clock.h"

namespace etna::agent::runtime {

// "<dir>/<n>.log" → "<dir>/<n>.times".
std::string LogTimesPath(const std::string& log_path);

// Appends an entry when the log's size changed since the last one.
class LogTimeRecorder {
 public:
  explicit LogTimeRecorder(std::string log_path);
  void Record(TimeMs now);
  // The log was just truncated (log_rotation.h): the side file starts again from "0 now".
  void Restart(TimeMs now);

 private:
  std::string log_path_;
  std::string times_path_;
  int64_t last_size_ = -1;
};

// Where the lines written at or after `cutoff_ms` begin in `log` (a line start, or log.size()),
// from the side file's text `times`; 0 when `times` is empty.
size_t SinceOffset(std::string_view log, std::string_view times, TimeMs cutoff_ms);

}  // namespace etna::agent::runtime
