#include "agent/runtime/log_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "agent/runtime/log_times.h"
#include "agent/runtime/port_forward.h"
#include "agent/runtime/remote_command.h"

namespace etna::agent::runtime {
namespace {

namespace fs = std::filesystem;
using net::http::Request;
using net::http::Response;

Response Text(int status, std::string body) {
  Response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  return r;
}

// Where the last `lines` lines of `content` begin.
size_t TailOffset(const std::string& content, int64_t lines) {
  if (lines < 0) return 0;
  size_t end = content.size();
  if (end > 0 && content[end - 1] == '\n') --end;
  size_t pos = end;
  for (int64_t n = 0; n < lines; ++n) {
    size_t nl = pos == 0 ? std::string::npos : content.rfind('\n', pos - 1);
    if (nl == std::string::npos) return 0;
    pos = nl;
  }
  return lines == 0 ? content.size() : pos + 1;
}

std::string ReadFrom(const std::string& path, size_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(static_cast<std::streamoff>(offset));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// "<dir>/<n>.log" has ended once "<dir>/<n>.exit" exists (or the pod's files are gone).
bool RunEnded(const std::string& log_path) {
  std::error_code ec;
  std::string exit = log_path.substr(0, log_path.size() - 4) + ".exit";
  return fs::exists(exit, ec) || !fs::exists(log_path, ec);
}

// Streams a log file as it grows, until its run ends (or the client goes away).
class FollowStream final : public net::http::ResponseStream {
 public:
  FollowStream(std::string path, size_t offset, std::optional<int64_t> limit)
      : path_(std::move(path)), offset_(offset), limit_(limit) {}
  ~FollowStream() override { Cancel(); }

  void Start(std::function<void()> wake) override {
    thread_ = std::thread([this, wake = std::move(wake)] {
      std::unique_lock<std::mutex> lock(mu_);
      while (!cancelled_) {
        lock.unlock();
        std::error_code ec;
        auto size = fs::file_size(path_, ec);
        bool news = (!ec && size != offset_.load()) || RunEnded(path_);  // smaller: rotated
        if (news) wake();
        lock.lock();
        cv_.wait_for(lock, std::chrono::milliseconds(50));
      }
    });
  }

  std::string Read(bool* done) override {
    bool ended = RunEnded(path_);  // checked before reading, so nothing written before is lost
    std::error_code ec;
    if (auto size = fs::file_size(path_, ec); !ec && size < offset_.load()) {
      offset_ = 0;  // the log was rotated (log_rotation.h): go on from its new start
    }
    std::string data = ReadFrom(path_, offset_);
    offset_ += data.size();
    if (limit_) {
      int64_t room = *limit_ - sent_;
      if (static_cast<int64_t>(data.size()) >= room) {
        data.resize(static_cast<size_t>(std::max<int64_t>(room, 0)));
        ended = true;
      }
    }
    sent_ += static_cast<int64_t>(data.size());
    *done = ended;
    return data;
  }

  void Cancel() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancelled_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  }

 private:
  std::string path_;
  std::atomic<size_t> offset_;
  std::optional<int64_t> limit_;
  int64_t sent_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  bool cancelled_ = false;
  std::thread thread_;
};

std::optional<int64_t> IntQuery(const Request& r, const char* name) {
  if (!r.HasQuery(name)) return std::nullopt;
  try {
    return std::stoll(r.Query(name));
  } catch (...) {
    return std::nullopt;
  }
}

// The path's non-empty segments.
std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

Response ContainerLogs(const Runtime* runtime, const Request& request) {
  // /containerLogs/<ns>/<pod>/<container>
  std::vector<std::string> parts = SplitPath(request.path);
  if (parts.size() == 3) parts.push_back("");  // no container: the pod's only one
  if (parts.size() != 4) return Text(400, "want /containerLogs/<namespace>/<pod>/<container>\n");
  LogQuery q;
  q.tail_lines = IntQuery(request, "tailLines");
  q.limit_bytes = IntQuery(request, "limitBytes");
  q.follow = request.Query("follow") == "true" || request.Query("follow") == "1";
  q.previous = request.Query("previous") == "true" || request.Query("previous") == "1";
  if (auto since = IntQuery(request, "sinceSeconds")) {
    if (*since < 1) return Text(400, "sinceSeconds must be a positive number of seconds\n");
    TimeMs now = std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
                     .count();
    q.since_ms = now - *since * 1000;
  }
  auto path = runtime->LogPath(parts[1], parts[2], parts[3], q.previous);
  if (!path.ok()) {
    return Text(path.status().code() == StatusCode::kNotFound ? 404 : 400,
                path.status().message() + "\n");
  }
  std::string content = ReadFrom(*path, 0);
  std::string times = q.since_ms ? ReadFrom(LogTimesPath(*path), 0) : "";
  if (!q.follow) return Text(200, SelectLog(content, q, times));
  size_t offset = SelectStart(content, q, times);
  Response r = Text(200, "");
  r.stream = std::make_shared<FollowStream>(*path, offset, q.limit_bytes);
  return r;
}

// /exec/<ns>/<pod>/<container>?command=... and /attach/<ns>/<pod>/<container>: upgrade to
// the remote command protocol.
Response Exec(const Runtime* runtime, const AgentEndpoints& e, const Request& request,
              bool attach) {
  auto parts = SplitPath(request.path);
  if (parts.size() != 4) {
    return Text(404, fmt::format("expected /{}/<namespace>/<pod>/<container>\n", parts[0]));
  }
  auto exec = runtime->ExecTarget(parts[1], parts[2], parts[3]);
  if (!exec.ok()) {
    return Text(exec.status().code() == StatusCode::kNotFound ? 404 : 400,
                exec.status().message() + "\n");
  }
  Status allowed = e.authorize_stream
                       ? e.authorize_stream(request, exec->pod_uid, attach ? "attach" : "exec")
                       : Status::FailedPrecondition("streams are not enabled");
  if (!allowed.ok()) return Text(403, allowed.message() + "\n");
  auto command = ParseRemoteCommand(request, attach);
  if (!command.ok()) return Text(400, command.status().message() + "\n");
  if (attach) {
    auto log = runtime->LogPath(parts[1], parts[2], parts[3], false);
    if (!log.ok()) return Text(400, log.status().message() + "\n");
    command->attach_log = *log;
  }
  return UpgradeRemoteCommand(request, std::move(exec->target), std::move(*command));
}

// /portForward/<ns>/<pod>: upgrades to the port-forward protocol.
Response PortForward(const Runtime* runtime, const AgentEndpoints& e, const Request& request) {
  auto parts = SplitPath(request.path);
  if (parts.size() != 3) return Text(404, "expected /portForward/<namespace>/<pod>\n");
  auto pod = runtime->ExecTarget(parts[1], parts[2], "");
  if (!pod.ok()) {
    return Text(pod.status().code() == StatusCode::kNotFound ? 404 : 400,
                pod.status().message() + "\n");
  }
  Status allowed = e.authorize_stream ? e.authorize_stream(request, pod->pod_uid, "portforward")
                                      : Status::FailedPrecondition("streams are not enabled");
  if (!allowed.ok()) return Text(403, allowed.message() + "\n");
  return UpgradePortForward(request, pod->target.host, parts[2]);
}

}  // namespace

size_t SelectStart(const std::string& content, const LogQuery& q, std::string_view times) {
  size_t start = q.since_ms ? SinceOffset(content, times, *q.since_ms) : 0;
  if (q.tail_lines) {
    // The tail of what is left after `start`.
    start = std::max(start, TailOffset(content, *q.tail_lines));
  }
  return start;
}

std::string SelectLog(const std::string& content, const LogQuery& q, std::string_view times) {
  std::string out = content.substr(SelectStart(content, q, times));
  if (q.limit_bytes && *q.limit_bytes >= 0 && static_cast<int64_t>(out.size()) > *q.limit_bytes) {
    out.resize(static_cast<size_t>(*q.limit_bytes));
  }
  return out;
}

net::http::Handler MakeAgentHandler(const Runtime* runtime, AgentEndpoints endpoints) {
  return [runtime, e = std::move(endpoints)](const Request& request) -> Response {
    if (request.path.rfind("/exec/", 0) == 0) return Exec(runtime, e, request, false);
    if (request.path.rfind("/attach/", 0) == 0) return Exec(runtime, e, request, true);
    if (request.path.rfind("/portForward/", 0) == 0) return PortForward(runtime, e, request);
    if (request.method != "GET") return Text(405, "only GET\n");
    if (request.path == "/healthz") return Text(200, "ok");
    if (request.path == "/readyz") {
      std::string reason = e.not_ready ? e.not_ready() : "";
      return reason.empty() ? Text(200, "ok") : Text(503, "not ready: " + reason + "\n");
    }
    if (request.path == "/gpus") {
      Response r;
      r.body = e.gpu_report ? e.gpu_report().dump() : "[]";
      return r;
    }
    if (request.path == "/stats/summary") {
      Response r;
      r.body = e.stats_summary ? e.stats_summary().dump() : "{}";
      return r;
    }
    if (request.path == "/metrics") {
      Response r = Text(200, e.metrics ? e.metrics() : "");
      r.content_type = "text/plain; version=0.0.4; charset=utf-8";
      return r;
    }
    if (request.path.rfind("/containerLogs/", 0) == 0) return ContainerLogs(runtime, request);
    return Text(404, "not found\n");
  };
}

}  // namespace etna::agent::runtime
