#include "agent/runtime/remote_command.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "agent/runtime/stream_framing.h"
#include "common/strings.h"
#include "net/http/wire.h"

namespace etna::agent::runtime {
namespace {

using net::http::Request;
using net::http::Response;
using nlohmann::json;

// The command's end as the error channel carries it (metav1.Status).
std::string EndStatus(int exit_code, const std::vector<std::string>& command) {
  if (exit_code == 0) return R"({"metadata":{},"status":"Success"})";
  std::string words;
  for (const auto& w : command) words += (words.empty() ? "" : " ") + w;
  json status = {
      {"metadata", json::object()},
      {"status", "Failure"},
      {"message", fmt::format("command terminated with non-zero exit code: error executing "
                              "command [{}], exit code {}",
                              words, exit_code)},
      {"reason", "NonZeroExitCode"},
      {"details",
       {{"causes", {{{"reason", "ExitCode"}, {"message", std::to_string(exit_code)}}}}}}};
  return status.dump();
}

std::string StartFailure(const Status& why) {
  return json{{"metadata", json::object()},
              {"status", "Failure"},
              {"message", why.message()},
              {"reason", "InternalError"}}
      .dump();
}

// Runs the command once the client's channels are there; relays its stdio.
class RemoteCommandStream : public net::http::UpgradedStream,
                            public std::enable_shared_from_this<RemoteCommandStream> {
 public:
  RemoteCommandStream(std::unique_ptr<StreamFraming> framing, ProbeTarget target,
                      RemoteCommandRequest request)
      : framing_(std::move(framing)), target_(std::move(target)), request_(std::move(request)) {}

  void Start(std::function<void()> wake) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      wake_ = std::move(wake);
    }
    if (framing_->Ready()) Run();  // WebSocket: nothing to wait for (SPDY: the client's streams)
  }

  std::string Read(bool* done) override {
    std::lock_guard<std::mutex> lock(mu_);
    *done = finished_;
    return std::exchange(out_, "");
  }

  void Receive(std::string_view data) override {
    std::vector<ChannelEvent> events;
    std::string reply;
    Status st = framing_->Feed(data, &events, &reply);
    Send(reply);
    if (!st.ok()) return Finish(framing_->Close());
    for (ChannelEvent& e : events) {
      switch (e.kind) {
        case ChannelEvent::Kind::kStdin:
          Input(std::move(e.data), false);
          break;
        case ChannelEvent::Kind::kStdinClosed:
          Input("", true);
          break;
        case ChannelEvent::Kind::kResize: {
          json size = json::parse(e.data, nullptr, false);
          if (size.is_object()) Resize(size.value("Width", 0), size.value("Height", 0));
          break;
        }
        case ChannelEvent::Kind::kClosed:
          ClientClosed();
          return;
      }
    }
    if (!started_ && framing_->Ready()) Run();
  }

  void ClientClosed() override { Stop(); }
  void Cancel() override { Stop(); }

 private:
  void Send(const std::string& bytes) {
    if (bytes.empty()) return;
    std::function<void()> wake;
    {
      std::lock_guard<std::mutex> lock(mu_);
      out_ += bytes;
      wake = wake_;
    }
    if (wake) wake();
  }

  void Finish(const std::string& last) {
    std::function<void()> wake;
    {
      std::lock_guard<std::mutex> lock(mu_);
      out_ += last;
      finished_ = true;
      wake = wake_;
    }
    if (wake) wake();
  }

  // Queues input for the writer thread (the strand must not block on a full pipe).
  void Input(std::string data, bool close) {
    std::lock_guard<std::mutex> lock(in_mu_);
    if (stdin_closed_) return;
    if (!data.empty()) input_.push_back(std::move(data));
    if (close) stdin_closed_ = true;
    in_cv_.notify_all();
  }

  // The client is gone: hang up the command, and SIGKILL what is left after 2 s.
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(session_mu_);
      if (stopped_) return;
      stopped_ = true;
      if (session_) session_->Kill();
    }
    Input("", true);
    auto self = shared_from_this();
    std::thread([self] {
      std::this_thread::sleep_for(std::chrono::seconds(2));
      std::lock_guard<std::mutex> lock(self->session_mu_);
      if (self->session_) self->session_->Kill(SIGKILL);
    }).detach();
  }

  void Resize(int width, int height) {
    std::lock_guard<std::mutex> lock(session_mu_);
    if (session_) {
      session_->Resize(width, height);
    } else {
      pending_size_ = {width, height};
    }
  }

  // On the strand: the command starts on a thread of its own (runc takes a while).
  void Run() {
    started_ = true;
    auto self = shared_from_this();
    std::thread([self] { self->Execute(); }).detach();
  }

  void Execute() {
    if (!request_.attach_log.empty()) return FollowLog();
    auto started = ExecSession::Start(target_, request_.exec);
    if (!started.ok()) {
      std::string bytes = framing_->Output(kErrorChannel, StartFailure(started.status()));
      return Finish(bytes + framing_->EndOutput(kErrorChannel) + framing_->Close());
    }
    ExecSession* session = started->get();
    {
      std::lock_guard<std::mutex> lock(session_mu_);
      session_ = std::move(*started);
      if (pending_size_.first > 0) session_->Resize(pending_size_.first, pending_size_.second);
      if (stopped_) session_->Kill();  // the client left while it started
    }
    auto self = shared_from_this();
    if (session->stdin_fd() >= 0) {
      std::thread([self, session] { self->WriteInput(session); }).detach();
    }
    int err = session->stderr_fd();
    std::thread err_reader;
    if (err >= 0) err_reader = std::thread([self, err] { self->Relay(err, kStderrChannel); });
    Relay(session->stdout_fd(), kStdoutChannel);
    if (err_reader.joinable()) err_reader.join();
    int code = session->Wait();
    std::string bytes = framing_->Output(kErrorChannel, EndStatus(code, request_.exec.command)) +
                        framing_->EndOutput(kErrorChannel) + framing_->Close();
    Input("", true);
    Finish(bytes);
  }

  // Attach: the log from its end now, until the run's exit file appears (or the client goes).
  void FollowLog() {
    std::string log = request_.attach_log;
    std::string exit_file = log.substr(0, log.size() - 4) + ".exit";  // <run>.log -> <run>.exit
    int fd = open(log.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) lseek(fd, 0, SEEK_END);
    char buf[32768];
    bool ended = false;
    while (fd >= 0) {
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n > 0) {
        Send(framing_->Output(kStdoutChannel, std::string_view(buf, static_cast<size_t>(n))));
        continue;
      }
      if (ended || Stopped()) break;
      ended = access(exit_file.c_str(), F_OK) == 0;  // one more read takes what came last
      if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (fd >= 0) close(fd);
    Finish(framing_->EndOutput(kStdoutChannel) + framing_->Output(kErrorChannel, EndStatus(0, {})) +
           framing_->EndOutput(kErrorChannel) + framing_->Close());
  }

  bool Stopped() {
    std::lock_guard<std::mutex> lock(session_mu_);
    return stopped_;
  }

  void Relay(int fd, int channel) {
    char buf[32768];
    bool wanted = channel == kStdoutChannel ? request_.stdout : request_.stderr;
    while (true) {
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EOF, or EIO from a terminal whose last user left
      if (wanted) Send(framing_->Output(channel, std::string_view(buf, static_cast<size_t>(n))));
    }
    if (wanted) Send(framing_->EndOutput(channel));
  }

  void WriteInput(ExecSession* session) {
    int fd = session->stdin_fd();
    while (true) {
      std::string chunk;
      {
        std::unique_lock<std::mutex> lock(in_mu_);
        in_cv_.wait(lock, [&] { return !input_.empty() || stdin_closed_; });
        if (input_.empty()) break;
        chunk = std::move(input_.front());
        input_.pop_front();
      }
      std::string_view rest = chunk;
      while (!rest.empty()) {
        ssize_t n = write(fd, rest.data(), rest.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        rest.remove_prefix(static_cast<size_t>(n));
      }
    }
    session->CloseStdin();
  }

  std::unique_ptr<StreamFraming> framing_;
  ProbeTarget target_;
  RemoteCommandRequest request_;
  bool started_ = false;  // the strand's

  std::mutex session_mu_;
  std::unique_ptr<ExecSession> session_;  // once started; lives as long as the stream
  std::pair<int, int> pending_size_{0, 0};
  bool stopped_ = false;

  std::mutex mu_;
  std::function<void()> wake_;
  std::string out_;
  bool finished_ = false;

  std::mutex in_mu_;
  std::condition_variable in_cv_;
  std::deque<std::string> input_;
  bool stdin_closed_ = false;
};

std::optional<bool> BoolParam(const Request& r, const char* name) {
  return r.HasQuery(name) ? ParseBool(r.Query(name)) : std::nullopt;
}

}  // namespace

Result<RemoteCommandRequest> ParseRemoteCommand(const Request& r, bool attach) {
  RemoteCommandRequest out;
  out.exec.command = r.QueryAll("command");
  if (out.exec.command.empty() && !attach) {
    return Status::InvalidArgument("command: required (you must specify at least one command)");
  }
  for (const char* name : {"stdin", "stdout", "stderr", "tty"}) {
    if (r.HasQuery(name) && !BoolParam(r, name)) {
      return Status::InvalidArgument(fmt::format("{}: must be true or false", name));
    }
  }
  out.exec.stdin = BoolParam(r, "stdin").value_or(false);
  out.exec.tty = BoolParam(r, "tty").value_or(false);
  out.stdout = BoolParam(r, "stdout").value_or(false);
  out.stderr = BoolParam(r, "stderr").value_or(false) && !out.exec.tty;
  if (!out.exec.stdin && !out.stdout && !out.stderr) {
    return Status::InvalidArgument("you must specify at least one of stdin, stdout, stderr");
  }
  if (attach && (out.exec.stdin || out.exec.tty)) {
    return Status::InvalidArgument(
        "stdin, tty: a container's main process has no stdin or terminal to attach to here "
        "(etna refuses stdin: true and tty: true on containers); use kubectl exec -it");
  }
  return out;
}

Response UpgradeRemoteCommand(const Request& upgrade, ProbeTarget target,
                              RemoteCommandRequest request) {
  ExpectedChannels expected{request.exec.stdin, request.stdout, request.stderr, request.exec.tty};
  auto framing = NegotiateRemoteCommandFraming(upgrade, expected);
  if (!framing.ok()) {
    return net::http::internal::StatusResponse(400, "BadRequest", framing.status().message());
  }
  Response r;
  r.status = 101;
  r.content_type.clear();
  r.headers = framing->headers;
  r.upgrade = std::make_shared<RemoteCommandStream>(std::move(framing->framing), std::move(target),
                                                    std::move(request));
  return r;
}

}  // namespace etna::agent::runtime
