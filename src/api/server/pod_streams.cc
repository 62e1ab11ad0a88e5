// pods/exec, pods/attach and pods/portforward: the API server authorizes the request, then relays
// the upgraded connection to the agent of the pod's node (as kube-apiserver relays to the kubelet),
// whose remote command endpoint speaks the protocol (agent/runtime/remote_command.h). The agent
// trusts the request only with a ticket: a JWT signed with the server's key (the ServiceAccount
// key), audience "etna-agent", for that node, pod uid and subresource, valid 60 s; the agent checks
// it with a TokenReview (POST /apis/authentication.k8s.io/v1/tokenreviews, also served here).
#include "api/server/pod_streams.h"

#include <fmt/format.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "api/server/api_error.h"
#include "api/server/api_server.h"
#include "api/server/auth.h"
#include "api/server/handler_util.h"
#include "common/strings.h"
#include "net/http/tcp.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using resources::ResourceInfo;

constexpr char kTicketIssuer[] = "etna-apiserver/pod-streams";
constexpr int64_t kTicketSeconds = 60;

// Bytes both ways between the client's upgraded connection and the agent's socket.
class AgentRelay : public net::http::UpgradedStream,
                   public std::enable_shared_from_this<AgentRelay> {
 public:
  AgentRelay(int fd, std::string early) : fd_(fd), out_(std::move(early)) {}
  ~AgentRelay() override { close(fd_); }

  void Start(std::function<void()> wake) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      wake_ = std::move(wake);
    }
    timeval none{0, 0};  // the session may be idle for long: no receive timeout from now on
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof(none));
    auto self = shared_from_this();
    std::thread([self] { self->FromAgent(); }).detach();
    std::thread([self] { self->ToAgent(); }).detach();
  }

  std::string Read(bool* done) override {
    std::lock_guard<std::mutex> lock(mu_);
    *done = agent_closed_;
    return std::exchange(out_, "");
  }

  void Receive(std::string_view data) override {
    std::lock_guard<std::mutex> lock(mu_);
    in_.emplace_back(data);
    cv_.notify_all();
  }

  void ClientClosed() override {
    std::lock_guard<std::mutex> lock(mu_);
    client_closed_ = true;
    cv_.notify_all();
  }

  void Cancel() override {
    shutdown(fd_, SHUT_RDWR);
    ClientClosed();
  }

 private:
  void FromAgent() {
    char buf[32768];
    while (true) {
      ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n < 0 && errno == EINTR) continue;
      std::function<void()> wake;
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (n > 0) {
          out_.append(buf, static_cast<size_t>(n));
        } else {
          agent_closed_ = true;
          client_closed_ = true;  // nothing more goes to the agent either
          cv_.notify_all();
        }
        wake = wake_;
      }
      if (wake) wake();
      if (n <= 0) return;
    }
  }

  void ToAgent() {
    while (true) {
      std::string chunk;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !in_.empty() || client_closed_; });
        if (in_.empty()) break;
        chunk = std::move(in_.front());
        in_.pop_front();
      }
      if (!net::http::SendAll(fd_, chunk)) break;
    }
    shutdown(fd_, SHUT_WR);
  }

  int fd_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> wake_;
  std::string out_;
  std::deque<std::string> in_;
  bool agent_closed_ = false;
  bool client_closed_ = false;
};

// The agent's reply head: status and headers (names as sent); what followed it in *rest.
struct ReplyHead {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string rest;
  std::string Header(std::string_view lower) const {
    for (const auto& [name, value] : headers) {
      if (Lower(name) == lower) return value;
    }
    return "";
  }
};

Result<ReplyHead> ReadReplyHead(int fd) {
  std::string buf;
  char chunk[4096];
  size_t end;
  while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
    if (buf.size() > 64 * 1024) return Status::Unavailable("the agent's reply head is too large");
    ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::Unavailable("the agent closed the connection without a reply");
    buf.append(chunk, static_cast<size_t>(n));
  }
  ReplyHead head;
  head.rest = buf.substr(end + 4);
  std::string_view text = std::string_view(buf).substr(0, end);
  size_t line_end = text.find("\r\n");
  std::string_view status_line = text.substr(0, line_end);
  if (status_line.size() < 12 || status_line.substr(0, 5) != "HTTP/") {
    return Status::Unavailable("the agent's reply is not HTTP");
  }
  head.status = std::atoi(std::string(status_line.substr(9, 3)).c_str());
  while (line_end != std::string_view::npos) {
    text.remove_prefix(line_end + 2);
    line_end = text.find("\r\n");
    std::string_view line = text.substr(0, line_end);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    head.headers.emplace_back(std::string(Trim(line.substr(0, colon))),
                              std::string(Trim(line.substr(colon + 1))));
  }
  return head;
}

// The headers a client's upgrade carries that the agent needs.
constexpr const char* kUpgradeHeaders[] = {"upgrade",
                                           "connection",
                                           "sec-websocket-key",
                                           "sec-websocket-version",
                                           "sec-websocket-protocol",
                                           "x-stream-protocol-version"};

}  // namespace

std::string IssueStreamTicket(const ServiceAccountTokens& keys, const StreamTicket& t,
                              int64_t now_s) {
  return keys.IssueClaims(
      {{"iss", kTicketIssuer},
       {"sub", t.user},
       {"aud", {kAgentAudience}},
       {"iat", now_s},
       {"nbf", now_s},
       {"exp", now_s + kTicketSeconds},
       {"etna.io/stream",
        {{"node", t.node}, {"podUID", t.pod_uid}, {"subresource", t.subresource}}}});
}

Result<StreamTicket> VerifyStreamTicket(const ServiceAccountTokens& keys, std::string_view token,
                                        int64_t now_s) {
  ETNA_ASSIGN_OR_RETURN(json p, keys.VerifyClaims(token));
  if (p.value("iss", "") != kTicketIssuer) return Status::InvalidArgument("not a stream ticket");
  if (now_s < p.value("nbf", int64_t{0}) || now_s >= p.value("exp", int64_t{0})) {
    return Status::InvalidArgument("the stream ticket has expired");
  }
  const json& s = p.value("etna.io/stream", json::object());
  StreamTicket t{p.value("sub", ""), s.value("node", ""), s.value("podUID", ""),
                 s.value("subresource", "")};
  return t;
}

net::http::Response ApiServer::PodStream(const net::http::Request& request, const RequestInfo& ri,
                                         const ResourceInfo& info, const UserInfo& user) {
  if (!options_.service_account_tokens) {
    return ApiError::Unavailable("this server has no signing key for its agents' tickets")
        .ToResponse();
  }
  auto pod = objects_.GetObject(info, ri.ns, ri.name);
  if (!pod.ok()) return pod.error().ToResponse();
  std::string target = "/portForward/" + ri.ns + "/" + ri.name;  // the kubelet's paths
  if (ri.subresource != "portforward") {                         // exec, attach
    auto container = PodContainer(*pod, request.Query("container"), ri.name);
    if (!container.ok()) return container.error().ToResponse();
    target = "/" + ri.subresource + "/" + ri.ns + "/" + ri.name + "/" + *container;
  }
  std::string node_name = pod->value("/spec/nodeName"_json_pointer, std::string());
  std::string phase = pod->value("/status/phase"_json_pointer, std::string());
  if (node_name.empty() || phase == "Succeeded" || phase == "Failed") {
    return ApiError::BadRequest(fmt::format("cannot {} a container in a completed or "
                                            "unscheduled pod; current phase is {}",
                                            ri.subresource == "exec"     ? "exec into"
                                            : ri.subresource == "attach" ? "attach to"
                                                                         : "port-forward to",
                                            phase.empty() ? "Pending" : phase))
        .ToResponse();
  }
  auto node = objects_.GetObject(*registry_.Find("", "v1", "nodes"), "", node_name);
  if (!node.ok()) return node.error().ToResponse();
  auto agent = AgentClient(*node);
  if (!agent.ok()) return agent.error().ToResponse();
  auto connected = net::http::ConnectTcp(agent->host, agent->port, std::chrono::seconds(10));
  if (!connected.ok()) {
    return ApiError::Unavailable(fmt::format("error trying to reach the agent of node \"{}\": {}",
                                             node_name, connected.status().message()))
        .ToResponse();
  }
  int fd = *connected;
  std::string ticket =
      IssueStreamTicket(*options_.service_account_tokens,
                        {user.name, node_name,
                         pod->value("/metadata/uid"_json_pointer, std::string()), ri.subresource},
                        options_.clock->NowMs() / 1000);
  size_t q = request.target.find('?');
  std::string head = fmt::format(
      "{} {}{} HTTP/1.1\r\nHost: {}:{}\r\nAuthorization: Bearer {}\r\n", request.method, target,
      q == std::string::npos ? "" : request.target.substr(q), agent->host, agent->port, ticket);
  for (const char* name : kUpgradeHeaders) {
    std::string value = request.Header(name);
    if (!value.empty()) head += fmt::format("{}: {}\r\n", name, value);
  }
  head += "\r\n";
  Result<ReplyHead> reply =
      net::http::SendAll(fd, head) ? ReadReplyHead(fd) : Status::Unavailable(std::strerror(errno));
  if (!reply.ok()) {
    close(fd);
    return ApiError::Unavailable(
               fmt::format("the agent of node \"{}\": {}", node_name, reply.status().message()))
        .ToResponse();
  }
  net::http::Response out;
  out.status = reply->status;
  out.content_type = reply->Header("content-type");
  if (reply->status != 101) {  // the agent's refusal, as it gave it (a client may fall back)
    size_t length = std::strtoul(reply->Header("content-length").c_str(), nullptr, 10);
    std::string body = reply->rest;
    char chunk[4096];
    while (body.size() < length) {
      ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0) break;
      body.append(chunk, static_cast<size_t>(n));
    }
    close(fd);
    std::string message = std::string(Trim(body));
    net::http::Response refused =
        (reply->status == 403   ? ApiError::Forbidden(message)
         : reply->status == 404 ? ApiError::FromStatus(Status::NotFound(message))
                                : ApiError::BadRequest(message))
            .ToResponse();
    return refused;
  }
  for (const auto& [name, value] : reply->headers) {
    std::string lower = Lower(name);
    if (lower != "content-length" && lower != "content-type" && lower != "date" &&
        lower != "server") {
      out.headers.emplace_back(name, value);
    }
  }
  out.upgrade = std::make_shared<AgentRelay>(fd, std::move(reply->rest));
  return out;
}

net::http::Response ApiServer::TokenReview(const net::http::Request& request, const RequestInfo& ri,
                                           const UserInfo& user) {
  if (ri.verb != "create") {
    return ApiError::MethodNotAllowed("tokenreviews supports POST").ToResponse();
  }
  if (!user.InGroup("system:masters") && !user.InGroup("system:nodes")) {
    return ApiError::Forbidden(fmt::format("User \"{}\" cannot create resource \"tokenreviews\" "
                                           "in API group \"authentication.k8s.io\"",
                                           user.name))
        .ToResponse();
  }
  auto body = DecodeRequestBody(request, options_.limits);
  if (!body.ok()) return body.error().ToResponse();
  std::string token = body->value("/spec/token"_json_pointer, std::string());
  json audiences = body->value("/spec/audiences"_json_pointer, json::array());
  if (token.empty()) return ApiError::BadRequest("spec.token: Required value").ToResponse();
  json status = {{"authenticated", false}};
  bool for_agents = audiences.is_array() && std::find(audiences.begin(), audiences.end(),
                                                      kAgentAudience) != audiences.end();
  if (for_agents && options_.service_account_tokens) {
    auto t =
        VerifyStreamTicket(*options_.service_account_tokens, token, options_.clock->NowMs() / 1000);
    if (t.ok()) {
      status = {{"authenticated", true},
                {"audiences", {kAgentAudience}},
                {"user",
                 {{"username", t->user},
                  {"extra",
                   {{"etna.io/node", {t->node}},
                    {"etna.io/pod-uid", {t->pod_uid}},
                    {"etna.io/subresource", {t->subresource}}}}}}};
    } else {
      status["error"] = t.status().message();
    }
  } else if (!for_agents) {
    net::http::Request probe;
    probe.headers["authorization"] = "Bearer " + token;
    std::optional<UserInfo> who = options_.authenticator->Authenticate(probe);
    if (!who) who = AuthenticateServiceAccount(probe);
    if (who) {
      status = {{"authenticated", true},
                {"user", {{"username", who->name}, {"groups", who->groups}}}};
    } else {
      status["error"] = "invalid bearer token";
    }
  } else {
    status["error"] = "this server issues no tickets";
  }
  json review = *body;
  review["apiVersion"] = "authentication.k8s.io/v1";
  review["kind"] = "TokenReview";
  review["status"] = status;
  return ObjectReply(201, review);
}

}  // namespace etna::api::server
