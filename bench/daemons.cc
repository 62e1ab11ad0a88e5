#include "bench/daemons.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "common/file.h"

namespace etna::bench {

Result<Daemon> Daemon::Spawn(std::string name, const std::vector<std::string>& argv,
                             const std::string& log_path) {
  int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return Status::Internal("open " + log_path);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log);
    return Status::Internal("fork for " + name);
  }
  if (pid == 0) {
    ::dup2(log, 1);
    ::dup2(log, 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ::close(log);
  return Daemon(std::move(name), pid, log_path);
}

Daemon::Daemon(Daemon&& other) noexcept
    : name_(std::move(other.name_)), pid_(other.pid_), log_path_(std::move(other.log_path_)) {
  other.pid_ = -1;
}

std::string Daemon::LogTail() const {
  auto text = ReadFile(log_path_);
  if (!text.ok()) return "";
  return text->size() > 2000 ? text->substr(text->size() - 2000) : *text;
}

Result<std::string> Daemon::WaitForLog(const std::string& needle,
                                       std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto text = ReadFile(log_path_);
    size_t at = text.ok() ? text->find(needle) : std::string::npos;
    if (at != std::string::npos) {
      size_t from = at + needle.size();
      size_t eol = text->find('\n', from);
      if (eol != std::string::npos) return text->substr(from, eol - from);
    }
    int wstatus = 0;
    if (::waitpid(pid_, &wstatus, WNOHANG) == pid_) {
      pid_ = -1;
      return Status::Unavailable(name_ + " exited before \"" + needle + "\"; its log:\n" +
                                 LogTail());
    }
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::Unavailable(name_ + " did not print \"" + needle + "\"; its log:\n" +
                                 LogTail());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

double Daemon::PeakRssMb() const {
  if (pid_ <= 0) return 0;
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream fields(line.substr(6));
      double kib = 0;
      fields >> kib;
      return kib / 1024.0;
    }
  }
  return 0;
}

double Daemon::CpuSeconds() const {
  if (pid_ <= 0) return 0;
  std::ifstream stat("/proc/" + std::to_string(pid_) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  size_t paren = text.rfind(')');  // the command name may hold spaces
  if (paren == std::string::npos) return 0;
  std::istringstream fields(text.substr(paren + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; fields >> field; ++i) {  // utime and stime are fields 14 and 15
    if (i == 14 || i == 15) ticks += std::stod(field);
    if (i == 15) break;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

void Daemon::Stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  for (int i = 0; i < 200; ++i) {  // 10 s to shut down cleanly
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

Result<uint16_t> FreeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::Internal("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return Status::Internal("bind a loopback port");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace etna::bench
