// ApiServer's pod subresources: binding (the scheduler's bind; a second bind is 409),
// eviction (a graceful delete) and log (proxied from the agent of the pod's node); and the
// node proxy (GET of the agent's read-only endpoints), which reaches the agent the same way.
#include <fmt/format.h>

#include <mutex>
#include <thread>

#include "api/server/agent_summaries.h"
#include "api/server/api_server.h"
#include "api/server/handler_util.h"
#include "api/server/pod_streams.h"
#include "api/server/request_info.h"
#include "api/server/stored_object.h"
#include "common/time.h"
#include "net/http/client.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using resources::ResourceInfo;

// Relays a follow=true log stream from the agent: a detached reader thread fills a buffer.
class LogFollowStream : public net::http::ResponseStream {
 public:
  LogFollowStream(net::http::ClientOptions client, std::string target)
      : state_(std::make_shared<State>()), client_(std::move(client)), target_(std::move(target)) {}

  void Start(std::function<void()> wake) override {
    {
      std::lock_guard lock(state_->mu);
      state_->wake = wake;
    }
    std::thread([state = state_, client = client_, target = target_] {
      net::http::HttpClient http(client);
      auto status = http.Stream("GET", target, [&](std::string_view data) {
        std::lock_guard lock(state->mu);
        if (state->cancelled) return false;
        state->buffer.append(data);
        if (state->wake) state->wake();
        return true;
      });
      std::lock_guard lock(state->mu);
      if (!status.ok() && !state->cancelled) {
        state->buffer += fmt::format("\n[etna: log stream ended: {}]\n", status.status().message());
      }
      state->done = true;
      if (state->wake) state->wake();
    }).detach();
  }

  std::string Read(bool* done) override {
    std::lock_guard lock(state_->mu);
    std::string out;
    out.swap(state_->buffer);
    *done = state_->done;
    return out;
  }

  void Cancel() override {
    std::lock_guard lock(state_->mu);
    state_->cancelled = true;
    state_->wake = nullptr;
  }

 private:
  struct State {
    std::mutex mu;
    std::string buffer;
    bool done = false;
    bool cancelled = false;
    std::function<void()> wake;
  };
  std::shared_ptr<State> state_;
  net::http::ClientOptions client_;
  std::string target_;
};

std::string NodeAddress(const json& node) {
  std::string fallback;
  for (const auto& a : node.value("/status/addresses"_json_pointer, json::array())) {
    if (!a.is_object()) continue;
    if (a.value("type", "") == "InternalIP") return a.value("address", "");
    if (fallback.empty()) fallback = a.value("address", "");
  }
  return fallback;
}

}  // namespace

ApiResult<net::http::ClientOptions> AgentClient(const json& node) {
  std::string address = NodeAddress(node);
  int port = node.value("/status/daemonEndpoints/kubeletEndpoint/Port"_json_pointer, 0);
  if (address.empty() || port <= 0 || port > 65535) {
    return ApiError::Unavailable(
        fmt::format("the agent of node \"{}\" has not reported its address and port",
                    node.value("/metadata/name"_json_pointer, std::string())));
  }
  net::http::ClientOptions client;
  client.host = address;
  client.port = static_cast<uint16_t>(port);
  client.tls = false;
  return client;
}

ApiResult<std::string> PodContainer(const json& pod, const std::string& wanted,
                                    const std::string& pod_name) {
  std::vector<std::string> containers;
  for (const auto& c : pod.value("/spec/containers"_json_pointer, json::array())) {
    if (c.is_object()) containers.push_back(c.value("name", ""));
  }
  if (wanted.empty()) {
    if (containers.size() != 1) {
      std::string names;
      for (const auto& c : containers) names += (names.empty() ? "" : " ") + c;
      return ApiError::BadRequest(fmt::format(
          "a container name must be specified for pod {}, choose one of: [{}]", pod_name, names));
    }
    return containers[0];
  }
  if (std::find(containers.begin(), containers.end(), wanted) == containers.end()) {
    return ApiError::BadRequest(
        fmt::format("container {} is not valid for pod {}", wanted, pod_name));
  }
  return wanted;
}

namespace {

// The agent endpoints the node proxy serves. Only these read-only ones: the agent trusts
// whoever reaches its port, so the proxy must not widen what a node reader may do — its
// /containerLogs is reached through pods/log (authorized per namespace), and anything else an
// agent may serve later stays private until it is added here deliberately.
bool ProxiedAgentPath(const std::string& path) {
  return path == "gpus" || path == "metrics" || path == "healthz" || path == "stats/summary";
}

}  // namespace

Result<json> FetchSummaryFromAgent(const json& node) {
  std::string name = node.value("/metadata/name"_json_pointer, std::string());
  auto agent = AgentClient(node);
  if (!agent.ok()) return Status::Unavailable(agent.error().message);
  agent->timeout = std::chrono::seconds(3);
  net::http::HttpClient http(*agent);
  auto reply = http.Do("GET", "/stats/summary");
  if (!reply.ok()) {
    return Status::Unavailable(fmt::format("error trying to reach the agent of node \"{}\": {}",
                                           name, reply.status().message()));
  }
  if (reply->status != 200) {
    return Status::Unavailable(
        fmt::format("the agent of node \"{}\" answered {} to /stats/summary", name, reply->status));
  }
  auto parsed = json::parse(reply->body, nullptr, false);
  if (!parsed.is_object()) {
    return Status::Unavailable(
        fmt::format("the agent of node \"{}\" sent a summary that is not JSON", name));
  }
  return parsed;
}

net::http::Response FetchLogFromAgent(const json& node, const LogRequest& request) {
  std::string node_name = node.value("/metadata/name"_json_pointer, std::string());
  auto agent = AgentClient(node);
  if (!agent.ok()) return agent.error().ToResponse();
  net::http::ClientOptions client = *agent;
  std::string target =
      fmt::format("/containerLogs/{}/{}/{}{}{}", request.ns, request.pod, request.container,
                  request.query.empty() ? "" : "?", request.query);
  net::http::Response r;
  r.content_type = "text/plain";
  if (request.follow) {
    client.timeout = std::chrono::hours(24);
    r.stream = std::make_shared<LogFollowStream>(client, target);
    return r;
  }
  net::http::HttpClient http(client);
  auto reply = http.Do("GET", target);
  if (!reply.ok()) {
    return ApiError::Unavailable(fmt::format("fetching logs from the agent of node \"{}\": {}",
                                             node_name, reply.status().message()))
        .ToResponse();
  }
  if (reply->status != 200) {
    r.status = reply->status;
    r.content_type = reply->content_type.empty() ? "application/json" : reply->content_type;
  }
  r.body = std::move(reply->body);
  return r;
}

net::http::Response ApiServer::Bind(const net::http::Request& request, const RequestInfo& ri,
                                    const ResourceInfo& info) {
  auto body = DecodeRequestBody(request, options_.limits);
  if (!body.ok()) return body.error().ToResponse();
  std::string node = body->value("/target/name"_json_pointer, std::string());
  if (node.empty()) {
    return ApiError::Invalid(info, ri.name,
                             {{"target.name", "FieldValueRequired", "Required value"}})
        .ToResponse();
  }
  json annotations = body->value("/metadata/annotations"_json_pointer, json::object());
  TimeMs now = options_.clock->NowMs();
  auto bound = objects_.Edit(info, ri.ns, ri.name, [&](json& pod) -> ApiResult<bool> {
    std::string current = pod.value("/spec/nodeName"_json_pointer, std::string());
    if (!current.empty()) {
      return ApiError::Conflict(
          info, ri.name + "/binding",
          fmt::format("pod {} is already assigned to node \"{}\"", ri.name, current));
    }
    if (pod["metadata"].contains("deletionTimestamp")) {
      return ApiError::Conflict(
          info, ri.name + "/binding",
          fmt::format("pod {} is being deleted, cannot be assigned to a host", ri.name));
    }
    pod["spec"]["nodeName"] = node;
    if (annotations.is_object()) {
      for (const auto& [k, v] : annotations.items()) pod["metadata"]["annotations"][k] = v;
    }
    json& conditions = pod["status"]["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    json scheduled = {
        {"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", FormatRfc3339(now)}};
    bool replaced = false;
    for (auto& c : conditions) {
      if (c.is_object() && c.value("type", "") == "PodScheduled") {
        c = scheduled;
        replaced = true;
      }
    }
    if (!replaced) conditions.push_back(scheduled);
    return true;
  });
  if (!bound.ok()) return bound.error().ToResponse();
  return ObjectReply(201, SuccessStatus(201));
}

net::http::Response ApiServer::Evict(const net::http::Request& request, const RequestInfo& ri,
                                     const ResourceInfo& info) {
  DeleteOptions options;
  if (!request.body.empty()) {
    auto body = DecodeRequestBody(request, options_.limits);
    if (!body.ok()) return body.error().ToResponse();
    const json delete_options = body->value("deleteOptions", json::object());
    if (delete_options.contains("gracePeriodSeconds") &&
        delete_options["gracePeriodSeconds"].is_number_integer()) {
      options.grace_period_seconds = delete_options["gracePeriodSeconds"].get<int64_t>();
    }
    if (delete_options.contains("preconditions") && delete_options["preconditions"].is_object()) {
      options.precondition_uid = delete_options["preconditions"].value("uid", "");
    }
  }
  auto deleted = objects_.Delete(info, ri.ns, ri.name, options);
  if (!deleted.ok()) return deleted.error().ToResponse();
  return ObjectReply(201, SuccessStatus(201));
}

net::http::Response ApiServer::Log(const net::http::Request& request, const RequestInfo& ri,
                                   const ResourceInfo& info) {
  auto pod = objects_.GetObject(info, ri.ns, ri.name);
  if (!pod.ok()) return pod.error().ToResponse();
  auto found = PodContainer(*pod, request.Query("container"), ri.name);
  if (!found.ok()) return found.error().ToResponse();
  std::string container = *found;
  std::string node_name = pod->value("/spec/nodeName"_json_pointer, std::string());
  if (node_name.empty()) {
    return ApiError::BadRequest(fmt::format("container \"{}\" in pod \"{}\" is waiting to start: "
                                            "the pod is not scheduled yet",
                                            container, ri.name))
        .ToResponse();
  }
  const ResourceInfo* nodes = registry_.Find("", "v1", "nodes");
  auto node = objects_.GetObject(*nodes, "", node_name);
  if (!node.ok()) return node.error().ToResponse();
  LogRequest log{ri.ns, ri.name, container, ParseBool(request.Query("follow")).value_or(false), ""};
  for (const char* key : {"tailLines", "sinceSeconds", "sinceTime", "timestamps", "limitBytes",
                          "previous", "follow"}) {
    if (!request.HasQuery(key)) continue;
    if (!log.query.empty()) log.query += "&";
    log.query += fmt::format("{}={}", key, request.Query(key));
  }
  return options_.log_fetcher(*node, log);
}

net::http::Response ApiServer::NodeProxy(const net::http::Request& request, const RequestInfo& ri,
                                         const ResourceInfo& info) {
  if (ri.verb != "get") {
    return ApiError::MethodNotAllowed("nodes/proxy supports GET of the agent's read-only endpoints")
        .ToResponse();
  }
  if (!ProxiedAgentPath(ri.subpath)) {
    return ApiError::NotFoundPath().ToResponse();
  }
  auto node = objects_.GetObject(info, "", ri.name);
  if (!node.ok()) return node.error().ToResponse();
  auto agent = AgentClient(*node);
  if (!agent.ok()) return agent.error().ToResponse();
  agent->timeout = std::chrono::seconds(5);  // a hung agent must not hold the request
  size_t query = request.target.find('?');
  std::string target = "/" + ri.subpath +
                       (query == std::string::npos ? std::string() : request.target.substr(query));
  net::http::HttpClient http(*agent);
  auto reply = http.Do("GET", target);
  if (!reply.ok()) {
    return ApiError::Unavailable(fmt::format("error trying to reach the agent of node \"{}\": {}",
                                             ri.name, reply.status().message()))
        .ToResponse();
  }
  net::http::Response r;
  r.status = reply->status;
  r.content_type = reply->content_type.empty() ? "text/plain" : reply->content_type;
  r.body = std::move(reply->body);
  return r;
}

}  // namespace etna::api::server
