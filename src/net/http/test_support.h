// Test helpers for the HTTP transport tests: temp dirs, a raw socket and listener, a
// controllable stream.
// Thread-safety: TestStream is safe to drive from any thread; the rest is single-threaded.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "net/http/message.h"

namespace etna::net::http::testing {

inline std::string MakeTempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "etna-http-XXXXXX").string();
  char* dir = ::mkdtemp(tmpl.data());
  return dir ? std::string(dir) : std::string();
}

// A blocking plain TCP socket to 127.0.0.1:port with a receive timeout.
class RawSocket {
 public:
  explicit RawSocket(uint16_t port,
                     std::chrono::milliseconds recv_timeout = std::chrono::seconds(10)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    SetReceiveTimeout(fd_, recv_timeout);
  }
  // Adopts a connected socket (from RawListener::Accept).
  struct Adopted {
    int fd;
  };
  explicit RawSocket(Adopted socket,
                     std::chrono::milliseconds recv_timeout = std::chrono::seconds(10))
      : fd_(socket.fd), connected_(socket.fd >= 0) {
    SetReceiveTimeout(fd_, recv_timeout);
  }
  ~RawSocket() { Close(); }
  RawSocket(const RawSocket&) = delete;
  RawSocket& operator=(const RawSocket&) = delete;

  // Also bounds how long accept waits on a listening socket.
  static void SetReceiveTimeout(int fd, std::chrono::milliseconds timeout) {
    timeval tv{};
    tv.tv_sec = timeout.count() / 1000;
    tv.tv_usec = (timeout.count() % 1000) * 1000;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }

  bool connected() const { return connected_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  // False once the peer is gone.
  bool Send(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  // Reads until the peer closes. *closed is false when the receive timeout hit first.
  std::string ReadAll(bool* closed = nullptr) {
    std::string out;
    char buf[4096];
    for (;;) {
      ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n > 0) {
        out.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (closed) *closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
      return out;
    }
  }
  // Reads until `needle` has been received (or the peer closes / the timeout hits).
  std::string ReadUntil(std::string_view needle) {
    std::string out;
    char buf[4096];
    while (out.find(needle) == std::string::npos) {
      ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

// A plain TCP listener on 127.0.0.1 and a free port, for a test that plays the server by hand.
class RawListener {
 public:
  explicit RawListener(std::chrono::milliseconds accept_timeout = std::chrono::seconds(10)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    RawSocket::SetReceiveTimeout(fd_, accept_timeout);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0 && ::listen(fd_, 8) == 0 &&
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
      port_ = ntohs(addr.sin_port);
    }
  }
  ~RawListener() { ::close(fd_); }
  RawListener(const RawListener&) = delete;
  RawListener& operator=(const RawListener&) = delete;

  uint16_t port() const { return port_; }  // 0 when it could not listen
  // The next connection; not connected() when accept failed or timed out.
  std::unique_ptr<RawSocket> Accept() {
    return std::make_unique<RawSocket>(RawSocket::Adopted{::accept(fd_, nullptr, nullptr)});
  }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
};

// A ResponseStream the test feeds with Push/Finish from its own thread.
class TestStream : public ResponseStream {
 public:
  void Start(std::function<void()> wake) override {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = std::move(wake);
    started_ = true;
    cv_.notify_all();
  }
  std::string Read(bool* done) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    while (!pieces_.empty()) {
      out += pieces_.front();
      pieces_.pop_front();
    }
    *done = finished_;
    return out;
  }
  void Cancel() override {
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    cv_.notify_all();
  }

  void Push(std::string piece) {
    Feed([&] { pieces_.push_back(std::move(piece)); });
  }
  void Finish() {
    Feed([&] { finished_ = true; });
  }

  bool WaitStarted(std::chrono::milliseconds t = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, t, [&] { return started_; });
  }
  bool WaitCancelled(std::chrono::milliseconds t = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, t, [&] { return cancelled_; });
  }
  bool cancelled() {
    std::lock_guard<std::mutex> lock(mu_);
    return cancelled_;
  }

 private:
  void Feed(const std::function<void()>& change) {
    std::function<void()> wake;
    {
      std::lock_guard<std::mutex> lock(mu_);
      change();
      wake = wake_;
    }
    if (wake) wake();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> wake_;
  std::deque<std::string> pieces_;
  bool started_ = false;
  bool finished_ = false;
  bool cancelled_ = false;
};

}  // namespace etna::net::http::testing
