#include "agent/runtime/log_times.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>

namespace etna::agent::runtime {

std::string LogTimesPath(const std::string& log_path) {
  constexpr std::string_view kLog = ".log";
  if (log_path.size() > kLog.size() &&
      log_path.compare(log_path.size() - kLog.size(), kLog.size(), kLog) == 0) {
    return log_path.substr(0, log_path.size() - kLog.size()) + ".times";
  }
  return log_path + ".times";
}

LogTimeRecorder::LogTimeRecorder(std::string log_path)
    : log_path_(std::move(log_path)), times_path_(LogTimesPath(log_path_)) {}

void LogTimeRecorder::Record(TimeMs now) {
  std::error_code ec;
  auto size = std::filesystem::file_size(log_path_, ec);
  if (ec || static_cast<int64_t>(size) == last_size_) return;
  int fd = open(times_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;  // without the side file the log is shown whole: nothing is lost
  std::string entry = fmt::format("{} {}\n", size, now);
  if (write(fd, entry.data(), entry.size()) == static_cast<ssize_t>(entry.size())) {
    last_size_ = static_cast<int64_t>(size);
  }
  close(fd);
}

void LogTimeRecorder::Restart(TimeMs now) {
  const std::string fresh = times_path_ + ".new";
  int fd = open(fresh.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::string entry = fmt::format("0 {}\n", now);
  bool written = write(fd, entry.data(), entry.size()) == static_cast<ssize_t>(entry.size());
  close(fd);
  if (written && rename(fresh.c_str(), times_path_.c_str()) == 0) last_size_ = 0;
}

size_t SinceOffset(std::string_view log, std::string_view times, TimeMs cutoff_ms) {
  size_t offset = 0;
  size_t pos = 0;
  while (pos < times.size()) {
    size_t nl = times.find('\n', pos);
    if (nl == std::string_view::npos) break;  // a partly written last entry
    std::string_view line = times.substr(pos, nl - pos);
    pos = nl + 1;
    size_t space = line.find(' ');
    if (space == std::string_view::npos) continue;
    uint64_t size = 0;
    TimeMs at = 0;
    auto a = std::from_chars(line.data(), line.data() + space, size);
    auto b = std::from_chars(line.data() + space + 1, line.data() + line.size(), at);
    if (a.ec != std::errc() || b.ec != std::errc()) continue;
    if (at >= cutoff_ms) break;  // entries are in time order
    offset = static_cast<size_t>(size);
  }
  if (offset >= log.size()) return log.size();
  if (offset > 0 && log[offset - 1] != '\n') {
    size_t nl = log.find('\n', offset);
    offset = nl == std::string_view::npos ? log.size() : nl + 1;
  }
  return offset;
}

}  // namespace etna::agent::runtime
