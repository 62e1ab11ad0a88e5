#include "api/server/api_server.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "api/resources/discovery.h"
#include "api/server/api_error.h"
#include "api/server/handler_util.h"
#include "api/server/metrics_api.h"
#include "api/server/node_access.h"
#include "api/server/rbac_bootstrap.h"
#include "api/server/request_info.h"
#include "api/types/well_known.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using resources::ResourceInfo;

net::http::Response JsonReply(int status, const json& body,
                              std::string content_type = "application/json") {
  net::http::Response r;
  r.status = status;
  r.body = body.dump();
  r.content_type = std::move(content_type);
  return r;
}

bool IsPublicPath(const std::string& path) {
  return path == "/healthz" || path == "/livez" || path == "/readyz" || path == "/version" ||
         path == "/metrics" || path.rfind("/healthz/", 0) == 0 || path.rfind("/livez/", 0) == 0 ||
         path.rfind("/readyz/", 0) == 0;
}

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string::npos) next = path.size();
    if (next > pos) out.push_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

}  // namespace

bool ApiServer::AnyPodOnNode(const ResourceInfo& pods, const std::string& ns,
                             const std::string& node,
                             const std::function<bool(const json&)>& matches) {
  bool found = false;
  objects_
      .ForEach(pods, ns,
               [&](const json& pod) {
                 found =
                     found || (pod.value("/spec/nodeName"_json_pointer, std::string()) == node &&
                               matches(pod));
               })
      .ok();
  return found;
}

ApiServer::ApiServer(store::Store* store, ApiServerOptions options)
    : store_(store),
      options_(std::move(options)),
      registry_(resources::ResourceRegistry::Default()),
      objects_(store, &registry_, options_.clock ? options_.clock : &system_clock_),
      rbac_(store),
      summaries_(options_.summary_fetcher ? options_.summary_fetcher : FetchSummaryFromAgent,
                 options_.clock ? options_.clock : &system_clock_, options_.metrics_max_age_ms) {
  if (!options_.clock) options_.clock = &system_clock_;
  metrics_api_ = std::make_unique<MetricsApi>(&objects_, &summaries_, options_.clock,
                                              options_.metrics_max_age_ms, options_.metric_rules,
                                              options_.prometheus_fetcher);
  if (!options_.log_fetcher) options_.log_fetcher = FetchLogFromAgent;
  if (!options_.metrics) {
    own_registry_ = std::make_unique<metrics::Registry>();
    own_metrics_ = std::make_unique<ApiMetrics>(own_registry_.get());
  }
  metrics_ = options_.metrics ? options_.metrics : own_metrics_.get();
}

ApiServer::~ApiServer() = default;

Status ApiServer::Bootstrap() {
  ETNA_RETURN_IF_ERROR(objects_.Bootstrap());
  return BootstrapRbac(objects_);
}

std::chrono::system_clock::time_point ApiServer::Now() const {
  return std::chrono::system_clock::time_point(std::chrono::milliseconds(options_.clock->NowMs()));
}

net::http::Response ApiServer::Handle(const net::http::Request& request) {
  auto start = std::chrono::steady_clock::now();
  RequestLabels labels{request.method, "", ""};
  net::http::Response reply;
  try {
    reply = Route(request, labels);
  } catch (const std::exception& e) {
    reply = ApiError::Internal(fmt::format("internal error: {}", e.what())).ToResponse();
  }
  if (reply.stream && labels.verb == "WATCH") {
    reply.stream = metrics_->CountOpenWatch(std::move(reply.stream), labels.resource);
  }
  metrics_->ObserveRequest(
      labels, reply.status,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return reply;
}

net::http::Response ApiServer::Route(const net::http::Request& request, RequestLabels& labels) {
  const std::string& path = request.path;
  if (path == "/" || path == "/ui" || path.rfind("/ui/", 0) == 0) return Dashboard(request);
  if (IsPublicPath(path)) {
    if (path == "/version") return JsonReply(200, resources::VersionInfo());
    if (path == "/metrics") {
      net::http::Response r;
      r.content_type = metrics::kTextContentType;
      r.body = metrics_->registry().Render();
      return r;
    }
    return TextReply(200, "ok");
  }
  std::optional<UserInfo> user = options_.authenticator->Authenticate(request);
  if (!user) user = AuthenticateServiceAccount(request);
  if (!user) return ApiError::Unauthorized().ToResponse();
  if (auto refused = Impersonate(request, *user)) return *refused;
  if (path == "/api" || path == "/apis" || path.rfind("/openapi", 0) == 0 ||
      (path.rfind("/api/", 0) == 0 && SplitPath(path).size() == 2) ||
      (path.rfind("/apis/", 0) == 0 && SplitPath(path).size() <= 3)) {
    if (request.method != "GET" && request.method != "HEAD") {
      return ApiError::MethodNotAllowed(
                 fmt::format("{} is not allowed on {}", request.method, path))
          .ToResponse();
    }
    return Discovery(request);
  }
  return Resource(request, *user, labels);
}

net::http::Response ApiServer::Discovery(const net::http::Request& request) {
  const std::string& path = request.path;
  std::vector<std::string> seg = SplitPath(path);
  if (path == "/api" || path == "/apis") {
    std::string version = resources::AggregatedDiscoveryVersion(request.Header("accept"));
    if (!version.empty()) {
      return JsonReply(200, resources::AggregatedDiscovery(registry_, path == "/api", version),
                       resources::AggregatedDiscoveryContentType(version));
    }
    if (path == "/api") return JsonReply(200, resources::ApiVersions(options_.server_address));
    return JsonReply(200, resources::ApiGroupList(registry_));
  }
  if (seg.size() == 2 && seg[0] == "openapi" && seg[1] == "v2") {
    net::http::Response r;  // an empty protobuf document: kubectl skips client-side validation
    r.content_type = "application/octet-stream";
    return r;
  }
  if (seg.size() == 2 && seg[0] == "openapi" && seg[1] == "v3") {
    return JsonReply(200, resources::OpenApiV3Index(registry_));
  }
  if (seg.size() > 2 && seg[0] == "openapi" && seg[1] == "v3") {
    std::string doc_path = path.substr(std::string("/openapi/v3/").size());
    auto doc = resources::OpenApiV3Document(registry_, doc_path);
    if (doc) return JsonReply(200, *doc);
    return ApiError::NotFoundPath().ToResponse();
  }
  if (seg.size() == 2 && seg[0] == "api") {
    auto list = resources::ApiResourceList(registry_, "", seg[1]);
    if (list) return JsonReply(200, *list);
  }
  if (seg.size() == 3 && seg[0] == "apis") {
    auto list = resources::ApiResourceList(registry_, seg[1], seg[2]);
    if (list) return JsonReply(200, *list);
  }
  if (seg.size() == 2 && seg[0] == "apis") {
    json groups = resources::ApiGroupList(registry_);
    for (const auto& g : groups["groups"]) {
      if (g.value("name", "") == seg[1]) {
        json group = g;
        group["kind"] = "APIGroup";
        group["apiVersion"] = "v1";
        return JsonReply(200, group);
      }
    }
  }
  return ApiError::NotFoundPath().ToResponse();
}

net::http::Response ApiServer::Resource(const net::http::Request& request, const UserInfo& user,
                                        RequestLabels& labels) {
  std::optional<RequestInfo> ri = ParseRequestInfo(request);
  if (!ri) return ApiError::NotFoundPath().ToResponse();
  if (ri->group == "authentication.k8s.io" && ri->plural == "tokenreviews") {
    labels.resource = ri->plural;
    return TokenReview(request, *ri, user);
  }
  if ((ri->group == "authorization.k8s.io" || ri->group == "authentication.k8s.io") &&
      registry_.Find(ri->group, ri->version, ri->plural)) {
    labels.resource = ri->plural;
    return AccessReview(request, *ri, user);
  }
  if (IsMetricsGroup(ri->group)) {
    labels.resource = ri->group;  // metric names are the client's: not a label
    AccessRequest access{ri->verb, ri->plural + "." + ri->group, "", ri->ns, ri->name};
    if (Authorize(user, access) != AccessDecision::kAllow) {
      return ApiError::Forbidden(ForbiddenMessage(user, access)).ToResponse();
    }
    return metrics_api_->Handle(request, *ri);
  }
  const ResourceInfo* info = registry_.Find(ri->group, ri->version, ri->plural);
  if (!info) return ApiError::NotFoundPath().ToResponse();
  // Labelled only once the resource is known: request paths must not add series at will.
  labels.resource = info->plural;
  if (ri->verb == "list" || ri->verb == "watch") {
    labels.verb = ri->verb == "list" ? "LIST" : "WATCH";
  }
  if ((!info->namespaced && ri->namespace_in_path) ||
      (info->namespaced && !ri->namespace_in_path && !ri->name.empty())) {
    return ApiError::NotFoundPath().ToResponse();
  }
  if (!ri->subresource.empty()) {
    bool known = (ri->subresource == "status" && info->has_status) ||
                 std::find(info->subresources.begin(), info->subresources.end(), ri->subresource) !=
                     info->subresources.end();
    if (!known) return ApiError::NotFoundPath().ToResponse();
  }
  labels.subresource = ri->subresource;
  AccessRequest access{ri->verb, info->QualifiedPlural(), ri->subresource, ri->ns, ri->name};
  // Running a command in a pod is a write, whichever method its protocol upgrades with (a
  // WebSocket's GET included), as Kubernetes' "create pods/exec" (attach, portforward).
  const bool stream =
      ri->subresource == "exec" || ri->subresource == "attach" || ri->subresource == "portforward";
  if (stream) access.verb = "create";
  if (ri->verb == "create" && ri->name.empty() && !user.InGroup("system:masters")) {
    // The name of a new object is in its body (rules for agents name their own objects).
    auto body = codec::DecodeBody(request.body, request.Header("content-type"), options_.limits);
    if (body.ok() && body->is_object()) {
      access.name = body->value("/metadata/name"_json_pointer, std::string());
    }
  }
  AccessDecision decision = Authorize(user, access);
  if (decision == AccessDecision::kDeny) {
    return ApiError::Forbidden(ForbiddenMessage(user, access)).ToResponse();
  }
  if (decision == AccessDecision::kAllowBoundPods) {
    std::string node = user.AgentNode();
    bool allowed = false;
    if (ri->verb == "list" || ri->verb == "watch") {
      allowed = request.Query("fieldSelector") == "spec.nodeName=" + node;
      if (auto job = JobPeersSelector(request.Query("labelSelector"));
          !allowed && job && ri->verb == "list" && request.Query("fieldSelector").empty()) {
        allowed = AnyPodOnNode(*info, ri->ns, node, [&](const json& pod) {
          return pod.value("/metadata/labels"_json_pointer, json::object())
                     .value(api::types::kJobNameLabel, "") == *job;
        });
      }
    } else if (!ri->name.empty()) {
      auto pod = objects_.Get(*info, ri->ns, ri->name);
      if (!pod.ok()) return ApiError::FromStatus(pod.status(), info, ri->name).ToResponse();
      allowed = pod->value("/spec/nodeName"_json_pointer, std::string()) == node &&
                (ri->subresource == "status" || ri->verb == "get" || ri->verb == "delete");
    }
    if (!allowed) return ApiError::Forbidden(ForbiddenMessage(user, access)).ToResponse();
  }
  if (decision == AccessDecision::kAllowPodReferenced) {
    const ResourceInfo* pods = registry_.Find("", "v1", "pods");
    bool allowed = pods && !ri->name.empty() &&
                   AnyPodOnNode(*pods, ri->ns, user.AgentNode(), [&](const json& pod) {
                     return PodReferences(pod, ri->plural, ri->name);
                   });
    if (!allowed) return ApiError::Forbidden(ForbiddenMessage(user, access)).ToResponse();
  }
  if (ri->subresource == "token") return TokenRequest(request, *ri, *info, user);
  if (stream) {
    if (ri->verb != "get" && ri->verb != "create") {
      return ApiError::MethodNotAllowed("pods/" + ri->subresource + " supports GET and POST")
          .ToResponse();
    }
    return PodStream(request, *ri, *info, user);
  }
  if (info->group == "rbac.authorization.k8s.io" && !user.InGroup("system:masters")) {
    net::http::Request guarded = request;
    if (auto refused = GuardRbacWrite(guarded, *ri, *info, user)) return *refused;
    return Dispatch(guarded, *ri, *info, user);
  }
  return Dispatch(request, *ri, *info, user);
}

net::http::Response ApiServer::Dispatch(const net::http::Request& request, const RequestInfo& ri,
                                        const ResourceInfo& info, const UserInfo& user) {
  // dryRun: a create is checked and not written; any other write is refused rather than made
  // (a client asking for a dry run must never find its change applied).
  if (const std::string dry = request.Query("dryRun"); !dry.empty()) {
    if (dry != "All") {
      return ApiError::BadRequest(fmt::format("dryRun: unsupported value \"{}\": only All", dry))
          .ToResponse();
    }
    const bool read = ri.verb == "get" || ri.verb == "list" || ri.verb == "watch";
    if (!read && !(ri.verb == "create" && ri.subresource.empty())) {
      return ApiError::BadRequest(
                 fmt::format("dryRun=All is served on create only; nothing was written for this "
                             "{}{}",
                             ri.verb, ri.subresource.empty() ? "" : " of " + ri.subresource))
          .ToResponse();
    }
  }
  if (ri.subresource == "log") {
    if (ri.verb != "get") return ApiError::MethodNotAllowed("pods/log supports GET").ToResponse();
    return Log(request, ri, info);
  }
  if (ri.subresource == "proxy") return NodeProxy(request, ri, info);
  if (ri.subresource == "binding") {
    if (ri.verb != "create") {
      return ApiError::MethodNotAllowed("pods/binding supports POST").ToResponse();
    }
    return Bind(request, ri, info);
  }
  if (ri.subresource == "eviction") {
    if (ri.verb != "create") {
      return ApiError::MethodNotAllowed("pods/eviction supports POST").ToResponse();
    }
    return Evict(request, ri, info);
  }
  if (ri.subresource == "scale") return ScaleSubresource(request, ri, info);
  // Kinds only the server writes (accounting's PodRuns) serve fewer verbs than the others.
  if (ri.subresource.empty() &&
      std::find(info.verbs.begin(), info.verbs.end(), ri.verb) == info.verbs.end()) {
    return ApiError::MethodNotAllowed(fmt::format("{} of {} is not supported: the server writes "
                                                  "them",
                                                  ri.verb, info.QualifiedPlural()))
        .ToResponse();
  }
  if (ri.verb == "get") return Get(request, ri, info);
  if (ri.verb == "list") return List(request, ri, info);
  if (ri.verb == "watch") return Watch(request, ri, info);
  if (ri.verb == "create") {
    if (!ri.name.empty()) {
      return ApiError::MethodNotAllowed("POST is not allowed on a named object").ToResponse();
    }
    if (info.namespaced && !ri.namespace_in_path) {
      return ApiError::NotFoundPath().ToResponse();
    }
    return Create(request, ri, info, user);
  }
  if (ri.name.empty() && ri.verb != "deletecollection") {
    return ApiError::MethodNotAllowed(fmt::format("{} needs an object name", request.method))
        .ToResponse();
  }
  if (ri.verb == "update") return Update(request, ri, info);
  if (ri.verb == "patch") return PatchObject(request, ri, info);
  if (ri.verb == "delete") return DeleteObject(request, ri, info);
  if (ri.verb == "deletecollection") return DeleteCollection(request, ri, info);
  return ApiError::MethodNotAllowed(fmt::format("{} is not supported", request.method))
      .ToResponse();
}

}  // namespace etna::api::server
