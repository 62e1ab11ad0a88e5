#include "agent/runtime/probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "agent/runtime/command.h"
#include "net/http/client.h"

namespace etna::agent::runtime {
namespace {

using nlohmann::json;

int TimeoutMs(const json& probe) { return std::max(1, probe.value("timeoutSeconds", 1)) * 1000; }

int ResolvePort(const json& port, const json& ports) {
  if (port.is_number_integer()) return port.get<int>();
  if (!port.is_string()) return -1;
  std::string name = port.get<std::string>();
  for (const auto& p : ports) {
    if (p.value("name", "") == name) return p.value("containerPort", -1);
  }
  return std::atoi(name.c_str()) > 0 ? std::atoi(name.c_str()) : -1;
}

bool ExecProbe(const json& exec, const ProbeTarget& t, int timeout_ms) {
  std::vector<std::string> args = t.exec_prefix;
  for (const auto& a : exec.value("command", json::array())) {
    if (a.is_string()) args.push_back(a.get<std::string>());
  }
  if (args.size() == t.exec_prefix.size()) return false;
  CommandOptions options;
  options.timeout = std::chrono::milliseconds(timeout_ms);
  options.has_env = t.exec_prefix.empty();  // inside a container, the container's own
  options.env = t.env;
  options.working_dir = t.working_dir;
  options.max_output = 0;
  auto r = RunCommand(args, options);
  return r.ok() && r->exit_code == 0;
}

bool TcpProbe(const std::string& host, int port, int timeout_ms) {
  if (port <= 0) return false;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) return false;
  bool ok = false;
  for (addrinfo* a = res; a != nullptr && !ok; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      ok = true;
    } else if (errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, timeout_ms) == 1) {
        int err = 0;
        socklen_t len = sizeof(err);
        ok = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0;
      }
    }
    close(fd);
  }
  freeaddrinfo(res);
  return ok;
}

bool HttpProbe(const json& get, const ProbeTarget& t, int timeout_ms) {
  net::http::ClientOptions options;
  options.host = get.value("host", t.host);
  int port = ResolvePort(get.value("port", json()), t.ports);
  if (port <= 0 || port > 65535) return false;
  options.port = static_cast<uint16_t>(port);
  options.tls = get.value("scheme", "HTTP") == "HTTPS";
  options.insecure_skip_verify = true;
  options.timeout = std::chrono::milliseconds(timeout_ms);
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& h : get.value("httpHeaders", json::array())) {
    headers.push_back({h.value("name", ""), h.value("value", "")});
  }
  net::http::HttpClient client(options);
  auto r = client.Do("GET", get.value("path", "/"), {}, "application/json", headers);
  return r.ok() && r->status >= 200 && r->status < 400;
}

}  // namespace

bool RunProbeOnce(const json& probe, const ProbeTarget& target) {
  int timeout = TimeoutMs(probe);
  if (probe.contains("exec")) return ExecProbe(probe["exec"], target, timeout);
  if (probe.contains("httpGet")) return HttpProbe(probe["httpGet"], target, timeout);
  if (probe.contains("tcpSocket")) {
    const json& tcp = probe["tcpSocket"];
    return TcpProbe(tcp.value("host", target.host),
                    ResolvePort(tcp.value("port", json()), target.ports), timeout);
  }
  return false;
}

ProbeTracker::ProbeTracker(json probe, ProbeTarget target, TimeMs container_started_ms)
    : probe_(std::move(probe)), target_(std::move(target)) {
  next_ms_ = container_started_ms + probe_.value("initialDelaySeconds", 0) * 1000LL;
  period_ms_ = std::max(1, probe_.value("periodSeconds", 10)) * 1000;
  success_threshold_ = std::max(1, probe_.value("successThreshold", 1));
  failure_threshold_ = std::max(1, probe_.value("failureThreshold", 3));
}

ProbeTracker::Verdict ProbeTracker::Poll(TimeMs now) {
  if (inflight_.valid()) {
    if (inflight_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return verdict_;
    if (inflight_.get()) {
      failures_ = 0;
      if (++successes_ >= success_threshold_) verdict_ = Verdict::kSuccess;
    } else {
      successes_ = 0;
      if (++failures_ >= failure_threshold_) verdict_ = Verdict::kFailure;
    }
  }
  if (now >= next_ms_) {
    next_ms_ = now + period_ms_;
    inflight_ = std::async(std::launch::async, [probe = probe_, target = target_] {
      return RunProbeOnce(probe, target);
    });
  }
  return verdict_;
}

}  // namespace etna::agent::runtime
