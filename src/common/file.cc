#include "common/file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace etna {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::NotFound(fmt::format("cannot read {}", path));
  return text.str();
}

Status WriteFileAtomically(const std::string& path, const std::string& contents, int mode) {
  std::string tmp = path + ".tmp";
  auto failed = [&](std::string_view what) {
    return Status::Unavailable(fmt::format("cannot {} {}: {}", what, tmp, std::strerror(errno)));
  };
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return failed("write");
  ::fchmod(fd, static_cast<mode_t>(mode));
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Status s = failed("write");
      ::close(fd);
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status s = failed("sync");
    ::close(fd);
    return s;
  }
  if (::close(fd) != 0) return failed("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Unavailable(
        fmt::format("cannot rename {} to {}: {}", tmp, path, std::strerror(errno)));
  }
  return Status::Ok();
}

}  // namespace etna
