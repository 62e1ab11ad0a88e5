// A container's log kept within a size, as the kubelet's containerLogMaxSize and
// containerLogMaxFiles keep it: when "<n>.log" has grown past the size, it is copied to
// "<n>.log.1" (older copies moving to .2, .3, ... and the oldest beyond the count dropped) and
// truncated. The container's processes write it with O_APPEND, so after the truncation they go
// on at its new end; what they write between the copy and the truncation (at most what one
// copy takes) is lost, as with logrotate's copytruncate. `kubectl logs` reads the current file.
// Thread-safety: LogRotator is used by one thread (the shim).
#pragma once

#include <cstdint>
#include <string>

namespace etna::agent::runtime {

// "<log>.<n>": the n-th newest rotated copy of `log`.
std::string RotatedLogPath(const std::string& log, int n);

class LogRotator {
 public:
  // max_bytes 0: never rotates. max_files counts the current file (at least 2).
  LogRotator(std::string log_path, int64_t max_bytes, int max_files);
  // Rotates when the log is larger than max_bytes; true when it did.
  bool MaybeRotate();

 private:
  std::string log_path_;
  int64_t max_bytes_;
  int max_files_;
};

// Removes a run's log, its rotated copies and its side files (<n>.times).
void RemoveRunLogs(const std::string& log_path);

}  // namespace etna::agent::runtime
