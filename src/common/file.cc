#include "common/file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace etna {

// POSIX calls rather than a stream: the agent reads small files (exit records, /proc/<pid>/stat)
// of every running container each second, and a stream's construction cost more than the read.
Result<std::string> ReadFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::NotFound(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::string text;
  char buf[16 * 1024];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return Status::NotFound(fmt::format("cannot read {}: {}", path, std::strerror(error)));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

Status WriteFileAtomically(const std::string& path, const std::string& contents, int mode) {
  std::string tmp = path + ".tmp";
  // Removes the partial file, so a failed write leaves only the old `path` behind.
  auto failed = [&](std::string_view what, int error) {
    ::unlink(tmp.c_str());
    return Status::Unavailable(fmt::format("cannot {} {}: {}", what, tmp, std::strerror(error)));
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return failed("write", errno);
  ::fchmod(fd, static_cast<mode_t>(mode));
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int error = n < 0 ? errno : EIO;  // write() returning 0 sets no errno
      ::close(fd);
      return failed("write", error);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    int error = errno;
    ::close(fd);
    return failed("sync", error);
  }
  if (::close(fd) != 0) return failed("close", errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int error = errno;
    ::unlink(tmp.c_str());
    return Status::Unavailable(
        fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(error)));
  }
  return Status::Ok();
}

}  // namespace etna
