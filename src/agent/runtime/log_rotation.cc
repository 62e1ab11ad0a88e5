#include "agent/runtime/log_rotation.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "agent/runtime/log_times.h"

namespace etna::agent::runtime {

namespace fs = std::filesystem;

std::string RotatedLogPath(const std::string& log, int n) { return fmt::format("{}.{}", log, n); }

LogRotator::LogRotator(std::string log_path, int64_t max_bytes, int max_files)
    : log_path_(std::move(log_path)), max_bytes_(max_bytes), max_files_(std::max(2, max_files)) {}

bool LogRotator::MaybeRotate() {
  if (max_bytes_ <= 0) return false;
  std::error_code ec;
  const auto size = fs::file_size(log_path_, ec);
  if (ec || static_cast<int64_t>(size) <= max_bytes_) return false;
  fs::remove(RotatedLogPath(log_path_, max_files_ - 1), ec);
  for (int n = max_files_ - 2; n >= 1; --n) {
    fs::rename(RotatedLogPath(log_path_, n), RotatedLogPath(log_path_, n + 1), ec);
  }
  fs::copy_file(log_path_, RotatedLogPath(log_path_, 1), fs::copy_options::overwrite_existing, ec);
  if (ec) return false;  // no room for the copy: keep the log rather than lose it
  return truncate(log_path_.c_str(), 0) == 0;
}

void RemoveRunLogs(const std::string& log_path) {
  std::error_code ec;
  fs::remove(log_path, ec);
  fs::remove(LogTimesPath(log_path), ec);
  for (int n = 1;; ++n) {
    if (!fs::remove(RotatedLogPath(log_path, n), ec)) break;
  }
}

}  // namespace etna::agent::runtime
