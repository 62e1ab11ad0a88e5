// The Kubernetes-compatible REST engine: turns an HTTP request into a reply over the store.
//
// Routes discovery, /version, OpenAPI, health and resource requests; authenticates and
// authorizes each resource request; decodes bodies within limits; serves get, list (selectors,
// limit/continue, Table), watch (streams), create, update, patch (merge, JSON, strategic, apply),
// delete and deletecollection, the status subresources, and pods/binding, pods/eviction and
// pods/log (whose bytes come from the agent of the pod's node, through `log_fetcher`), and
// nodes/proxy (GET of the node agent's gpus, metrics, stats/summary and healthz); RBAC
// (rbac.h: the stored roles and bindings, escalation checks on their writes), impersonation
// and the access reviews of `kubectl auth can-i`; and the metrics APIs (metrics.k8s.io,
// custom.metrics.k8s.io, external.metrics.k8s.io: metrics_api.h) from the agents' usage summaries.
// Thread-safety: Handle may be called concurrently from any number of threads.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "api/codec/decode.h"
#include "api/resources/registry.h"
#include "api/server/agent_summaries.h"
#include "api/server/api_metrics.h"
#include "api/server/auth.h"
#include "api/server/metrics_api.h"
#include "api/server/object_service.h"
#include "api/server/rbac.h"
#include "api/server/service_account_tokens.h"
#include "api/server/ticker.h"
#include "api/server/usage_history.h"
#include "common/clock.h"
#include "net/http/message.h"
#include "store/store.h"

namespace etna::api::server {

struct RequestInfo;
class MetricsApi;

// What `kubectl logs` asks for, passed to the agent of the pod's node.
struct LogRequest {
  std::string ns, pod, container;
  bool follow = false;
  std::string query;  // tailLines, sinceSeconds, timestamps, limitBytes, previous: as received
};
// Fetches a container's log from the agent that runs it (`node` is the Node object).
using LogFetcher =
    std::function<net::http::Response(const nlohmann::json& node, const LogRequest&)>;

struct ApiServerOptions {
  const Authenticator* authenticator = nullptr;  // required
  const Authorizer* authorizer = nullptr;        // required
  const Clock* clock = nullptr;                  // nullptr: the system clock
  std::string server_address = "127.0.0.1:6443";
  codec::DecodeLimits limits;
  LogFetcher log_fetcher;  // empty: the agent's HTTP endpoint from the Node's status
  // Where requests are counted and /metrics renders from; null: the server's own registry.
  ApiMetrics* metrics = nullptr;
  // How the metrics APIs read an agent's usage summary; empty: FetchSummaryFromAgent.
  SummaryFetcher summary_fetcher;
  TimeMs metrics_max_age_ms = 1000;      // how long a fetched summary is reused
  MetricRules metric_rules;              // the operator's external metrics (--metric-rules)
  PrometheusFetcher prometheus_fetcher;  // empty: over HTTP
  // The samples GET /ui/history serves (usage_history.h); null: it answers 404.
  const UsageHistory* usage_history = nullptr;
  // --prometheus-url: GET /ui/history asks this Prometheus instead (the last 6 hours, with the
  // GPUs' utilization); "": the server's own samples.
  std::string prometheus_url;
  // Signs and checks ServiceAccount tokens; null: none are issued or accepted.
  const ServiceAccountTokens* service_account_tokens = nullptr;
};

class ApiServer {
 public:
  ApiServer(store::Store* store, ApiServerOptions options);
  ~ApiServer();
  // Creates the namespaces, queues and RBAC roles every cluster starts with.
  Status Bootstrap();
  net::http::Response Handle(const net::http::Request& request);
  // The HTTP server's screen of a large body's head (net::http::ServerOptions): 401 when no
  // credential could pass (an unknown static token, a service-account token whose signature or
  // times fail), so nobody unauthenticated makes the server buffer megabytes. CPU only.
  std::optional<net::http::Response> ScreenLargeBody(const net::http::Request& head) const;
  ObjectService& objects() { return objects_; }
  // This moment's queues' and nodes' GPUs, for the usage history.
  UsageHistory::Sample SampleUsage();
  ApiMetrics& metrics() { return *metrics_; }

 private:
  net::http::Response Route(const net::http::Request& request, RequestLabels& labels);
  // The web dashboard (docs/dashboard.md): / and /ui redirect to /ui/, its files under it.
  net::http::Response Dashboard(const net::http::Request& request);
  // GET /ui/watch?watch=URL&watch=...: the dashboard's watches in one stream
  // (multiplexed_watch.h), each authorized as its own request.
  net::http::Response WatchMany(const net::http::Request& request);
  // GET /ui/history: the usage history, to whoever may list queues.
  net::http::Response History(const net::http::Request& request);
  // GET /ui/explain?namespace=NS&name=JOB: the text `etna explain JOB` prints, made from what
  // the caller may read (the job, its namespace's PodGroups, the nodes, the queue); with
  // &kind=PodGroup, the lines it prints for a PodGroup no Volcano Job owns.
  net::http::Response Explain(const net::http::Request& request);
  // /ui/history's answer from --prometheus-url.
  net::http::Response PrometheusHistory();
  // `request` again as a GET of `target` (its credentials, authorization and limits): the
  // reply, and its body as JSON when it is a 200.
  std::pair<net::http::Response, nlohmann::json> GetAs(const net::http::Request& request,
                                                       const std::string& target);
  net::http::Response Discovery(const net::http::Request& request);
  net::http::Response Resource(const net::http::Request& request, const UserInfo& user,
                               RequestLabels& labels);
  net::http::Response Dispatch(const net::http::Request& request, const RequestInfo& ri,
                               const resources::ResourceInfo& info, const UserInfo& user);
  // Whether a pod of `ns` bound to `node` satisfies `matches` (the agents' reads beyond their
  // own pods: node_access.h).
  bool AnyPodOnNode(const resources::ResourceInfo& pods, const std::string& ns,
                    const std::string& node,
                    const std::function<bool(const nlohmann::json&)>& matches);
  net::http::Response Get(const net::http::Request& request, const RequestInfo& ri,
                          const resources::ResourceInfo& info);
  net::http::Response List(const net::http::Request& request, const RequestInfo& ri,
                           const resources::ResourceInfo& info);
  net::http::Response Watch(const net::http::Request& request, const RequestInfo& ri,
                            const resources::ResourceInfo& info);
  // `user` is recorded as the creator of a workload (object_rules.h StampCreator).
  net::http::Response Create(const net::http::Request& request, const RequestInfo& ri,
                             const resources::ResourceInfo& info, const UserInfo& user);
  net::http::Response Update(const net::http::Request& request, const RequestInfo& ri,
                             const resources::ResourceInfo& info);
  net::http::Response PatchObject(const net::http::Request& request, const RequestInfo& ri,
                                  const resources::ResourceInfo& info);
  net::http::Response DeleteObject(const net::http::Request& request, const RequestInfo& ri,
                                   const resources::ResourceInfo& info);
  net::http::Response DeleteCollection(const net::http::Request& request, const RequestInfo& ri,
                                       const resources::ResourceInfo& info);
  net::http::Response Bind(const net::http::Request& request, const RequestInfo& ri,
                           const resources::ResourceInfo& info);
  net::http::Response Evict(const net::http::Request& request, const RequestInfo& ri,
                            const resources::ResourceInfo& info);
  net::http::Response Log(const net::http::Request& request, const RequestInfo& ri,
                          const resources::ResourceInfo& info);
  // GET, PUT and PATCH of .../deployments|replicasets/<name>/scale (autoscaling/v1 Scale):
  // reads and writes spec.replicas (scale_subresource.cc).
  net::http::Response ScaleSubresource(const net::http::Request& request, const RequestInfo& ri,
                                       const resources::ResourceInfo& info);
  // The combined decision: the fixed and YAML rules (options_.authorizer), then RBAC
  // (access_review.cc).
  AccessDecision Authorize(const UserInfo& user, const AccessRequest& access);
  // Whether `user` may `verb` the non-resource `path` (masters, or an RBAC nonResourceURLs rule).
  bool AuthorizePath(const UserInfo& user, const std::string& verb, const std::string& path);
  // Applies the Impersonate-User/Impersonate-Group headers to `user` when it may impersonate
  // them; the refusal (400, 403) otherwise.
  std::optional<net::http::Response> Impersonate(const net::http::Request& request, UserInfo& user);
  // POST of authorization.k8s.io/v1 access reviews and authentication.k8s.io/v1
  // SelfSubjectReview (access_review.cc).
  net::http::Response AccessReview(const net::http::Request& request, const RequestInfo& ri,
                                   const UserInfo& user);
  // A SelfSubjectRulesReview's status: what `user` may do in `ns`.
  nlohmann::json RulesReview(const UserInfo& user, const std::string& ns);
  // RBAC's escalation check on a create, update or patch of an RBAC kind (rbac_writes.cc): the
  // refusal, or nullopt to go on (a patch's body then carries a resourceVersion precondition).
  std::optional<net::http::Response> GuardRbacWrite(net::http::Request& request,
                                                    const RequestInfo& ri,
                                                    const resources::ResourceInfo& info,
                                                    const UserInfo& user);
  // Forbidden unless `user` holds every permission `rules` grant in `ns` ("": cluster scope).
  std::optional<ApiError> CheckNoEscalation(const UserInfo& user,
                                            const std::vector<PolicyRule>& rules,
                                            const std::string& ns, const std::string& what);
  // The user of a ServiceAccount token this server issued (service_accounts.cc).
  std::optional<UserInfo> AuthenticateServiceAccount(const net::http::Request& request);
  // POST .../serviceaccounts/<name>/token (authentication.k8s.io/v1 TokenRequest).
  net::http::Response TokenRequest(const net::http::Request& request, const RequestInfo& ri,
                                   const resources::ResourceInfo& info, const UserInfo& user);
  // pods/exec, attach and portforward (GET for WebSocket, POST for SPDY): relayed, upgraded, to
  // the agent of the pod's node with a ticket (pod_streams.cc).
  net::http::Response PodStream(const net::http::Request& request, const RequestInfo& ri,
                                const resources::ResourceInfo& info, const UserInfo& user);
  // POST /apis/authentication.k8s.io/v1/tokenreviews, for masters and agents (pod_streams.cc).
  net::http::Response TokenReview(const net::http::Request& request, const RequestInfo& ri,
                                  const UserInfo& user);
  // GET /api/v1/nodes/<name>/proxy/<gpus|metrics|healthz>: relayed from the node's agent.
  net::http::Response NodeProxy(const net::http::Request& request, const RequestInfo& ri,
                                const resources::ResourceInfo& info);

  std::chrono::system_clock::time_point Now() const;

  store::Store* store_;
  ApiServerOptions options_;
  SystemClock system_clock_;
  const resources::ResourceRegistry& registry_;
  ObjectService objects_;
  RbacAuthorizer rbac_;
  AgentSummaries summaries_;
  std::unique_ptr<MetricsApi> metrics_api_;
  Ticker ticker_;
  std::unique_ptr<metrics::Registry> own_registry_;  // when options_.metrics is null
  std::unique_ptr<ApiMetrics> own_metrics_;
  ApiMetrics* metrics_;
};

// The default LogFetcher: GET http://<node InternalIP>:<kubelet port>/containerLogs/<ns>/<pod>/
// <container>?<query> on the node's agent, streamed for follow.
net::http::Response FetchLogFromAgent(const nlohmann::json& node, const LogRequest& request);

}  // namespace etna::api::server
