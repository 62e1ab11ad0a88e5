// The API server's paths for the web dashboard (docs/dashboard.md): its files under /ui/ and
// the redirect to them, the multiplexed watch, the usage history (the server's samples or
// --prometheus-url) and a job's explanation. Every path that answers with data runs the API
// requests it needs as the caller (GetAs, or Route for each watch), so it answers only what the
// caller may read.
#include <fmt/format.h>

#include "api/server/api_error.h"
#include "api/server/api_server.h"
#include "api/server/handler_util.h"
#include "api/server/multiplexed_watch.h"
#include "api/types/job_explanation.h"
#include "common/strings.h"
#include "common/time.h"
#include "net/http/prometheus.h"
#include "net/http/wire.h"
#include "ui/assets.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using resources::ResourceInfo;

}  // namespace

net::http::Response ApiServer::Dashboard(const net::http::Request& request) {
  // The dashboard's files hold no data: they are public, and every read or write they make is
  // an API request with the user's token (docs/dashboard.md).
  if (request.method != "GET" && request.method != "HEAD") {
    return ApiError::MethodNotAllowed(
               fmt::format("{} is not allowed on {}", request.method, request.path))
        .ToResponse();
  }
  if (request.path == "/ui/watch") return WatchMany(request);
  if (request.path == "/ui/history") return History(request);
  if (request.path == "/ui/explain") return Explain(request);
  net::http::Response r;
  if (request.path == "/" || request.path == "/ui") {
    r.status = 302;
    r.headers.emplace_back("Location", "/ui/");
    r.content_type = "text/plain; charset=utf-8";
    r.body = "the dashboard is at /ui/\n";
    return r;
  }
  auto asset = ui::FindAsset(std::string_view(request.path).substr(4));
  if (!asset) return TextReply(404, fmt::format("no such file: {}\n", request.path));
  r.content_type = std::string(asset->content_type);
  r.body = std::string(asset->body);
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Content-Security-Policy",
                         "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'");
  return r;
}

UsageHistory::Sample ApiServer::SampleUsage() {
  auto list = [&](std::string_view group, std::string_view version, std::string_view plural) {
    const ResourceInfo* info = registry_.Find(group, version, plural);
    std::vector<json> out;
    if (info == nullptr) return out;
    auto got = objects_.List(*info, "");
    if (got.ok()) out = std::move(*got);
    return out;
  };
  return UsageHistory::Take(options_.clock->NowMs(),
                            list("scheduling.volcano.sh", "v1beta1", "queues"),
                            list("", "v1", "nodes"));
}

std::pair<net::http::Response, json> ApiServer::GetAs(const net::http::Request& request,
                                                      const std::string& target) {
  net::http::Request child = request;
  child.method = "GET";
  child.body.clear();
  child.target = target;
  child.headers["accept"] = "application/json";
  net::http::internal::ParseTarget(child.target, &child.path, &child.query);
  RequestLabels labels{"GET", "", ""};
  net::http::Response reply = Route(child, labels);
  json body;
  if (reply.status == 200) body = json::parse(reply.body, nullptr, false);
  return {std::move(reply), std::move(body)};
}

net::http::Response ApiServer::History(const net::http::Request& request) {
  if (options_.prometheus_url.empty() && options_.usage_history == nullptr) {
    return ApiError::NotFoundPath().ToResponse();
  }
  // Whoever may list the queues may see how much each held.
  auto [allowed, _] = GetAs(request, "/apis/scheduling.volcano.sh/v1beta1/queues?limit=1");
  if (allowed.status != 200) return allowed;
  if (!options_.prometheus_url.empty()) return PrometheusHistory();
  json history = options_.usage_history->ToJson();
  history["source"] = "etna-server";
  return ObjectReply(200, history);
}

net::http::Response ApiServer::PrometheusHistory() {
  constexpr int64_t kWindowS = 6 * 3600;
  constexpr int64_t kStepS = 60;
  const int64_t end_s = options_.clock->NowMs() / 1000;
  // By Unix second: the sample the three queries' points make.
  std::map<int64_t, json> samples;
  auto query =
      [&](const std::string& expr,
          const std::function<void(json&, const net::http::PrometheusSeries&, double)>& merge)
      -> Status {
    net::http::PrometheusQuery q;
    q.server_address = options_.prometheus_url;
    q.query = expr;
    q.range = net::http::PrometheusRange{end_s - kWindowS, end_s, kStepS};
    auto body = options_.prometheus_fetcher ? options_.prometheus_fetcher(q)
                                            : net::http::QueryPrometheus(q);
    if (!body.ok()) return body.status();
    ETNA_ASSIGN_OR_RETURN(auto matrix, net::http::PrometheusMatrix(*body, q));
    for (const auto& series : matrix) {
      for (const auto& [t, v] : series.points) {
        json& s = samples[static_cast<int64_t>(t)];
        if (s.is_null()) {
          s = {{"time", FormatRfc3339(static_cast<TimeMs>(t) * 1000)},
               {"clusterGpus", 0},
               {"allocatedGpus", 0},
               {"queues", json::object()}};
        }
        merge(s, series, v);
      }
    }
    return Status::Ok();
  };
  Status st = query(
      "sum by (queue_name) (volcano_queue_allocated_scalar_resources"
      "{resource=\"nvidia.com/gpu\"}) / 1000",
      [](json& s, const net::http::PrometheusSeries& series, double v) {
        auto name = series.labels.find("queue_name");
        if (name == series.labels.end()) return;
        s["queues"][name->second] = v;
        s["allocatedGpus"] = s["allocatedGpus"].get<double>() + v;
      });
  if (st.ok()) {
    st = query("count(DCGM_FI_DEV_GPU_UTIL)",
               [](json& s, const net::http::PrometheusSeries&, double v) { s["clusterGpus"] = v; });
  }
  if (st.ok()) {
    st = query("avg(DCGM_FI_DEV_GPU_UTIL)", [](json& s, const net::http::PrometheusSeries&,
                                               double v) { s["utilizationPercent"] = v; });
  }
  if (!st.ok()) {
    return ApiError::Unavailable(fmt::format("history from --prometheus-url {}: {}",
                                             options_.prometheus_url, st.message()))
        .ToResponse();
  }
  json out = {{"source", "prometheus"}, {"periodSeconds", kStepS}, {"samples", json::array()}};
  for (auto& [t, s] : samples) out["samples"].push_back(std::move(s));
  return ObjectReply(200, out);
}

net::http::Response ApiServer::Explain(const net::http::Request& request) {
  std::string ns = request.Query("namespace");
  std::string name = request.Query("name");
  if (ns.empty() || name.empty()) {
    return ApiError::BadRequest("explain: namespace and name are required").ToResponse();
  }
  auto queue_of = [&](const json& object) {
    std::string queue_name = object.value("/spec/queue"_json_pointer, std::string("default"));
    return GetAs(request, "/apis/scheduling.volcano.sh/v1beta1/queues/" + QueryEscape(queue_name));
  };
  if (request.Query("kind") == "PodGroup") {  // one of its own: no job, no nodes' fit
    auto [group_reply, group] =
        GetAs(request, fmt::format("/apis/scheduling.volcano.sh/v1beta1/namespaces/{}/podgroups/{}",
                                   QueryEscape(ns), QueryEscape(name)));
    if (group_reply.status != 200) return group_reply;
    auto [queue_reply, queue] = queue_of(group);
    if (queue_reply.status != 200 && queue_reply.status != 404) return queue_reply;
    return TextReply(200,
                     types::ExplainPodGroup(group, queue_reply.status == 200 ? &queue : nullptr));
  }
  auto [job_reply, job] =
      GetAs(request, fmt::format("/apis/batch.volcano.sh/v1alpha1/namespaces/{}/jobs/{}",
                                 QueryEscape(ns), QueryEscape(name)));
  if (job_reply.status != 200) return job_reply;
  auto [groups_reply, groups] = GetAs(
      request,
      fmt::format("/apis/scheduling.volcano.sh/v1beta1/namespaces/{}/podgroups", QueryEscape(ns)));
  if (groups_reply.status != 200) return groups_reply;
  auto [nodes_reply, nodes] = GetAs(request, "/api/v1/nodes");
  if (nodes_reply.status != 200) return nodes_reply;
  auto [queue_reply, queue] = queue_of(job);
  if (queue_reply.status != 200 && queue_reply.status != 404) return queue_reply;
  std::vector<json> items = groups.value("items", json::array()).get<std::vector<json>>();
  return TextReply(200,
                   types::ExplainJob(ns, name, job, types::JobPodGroups(job, items),
                                     nodes.value("items", json::array()).get<std::vector<json>>(),
                                     queue_reply.status == 200 ? &queue : nullptr));
}

net::http::Response ApiServer::WatchMany(const net::http::Request& request) {
  std::vector<std::string> targets = request.QueryAll("watch");
  if (targets.empty() || targets.size() > kMaxMultiplexedWatches) {
    return ApiError::BadRequest(fmt::format("watch: between 1 and {} watch URLs, not {}",
                                            kMaxMultiplexedWatches, targets.size()))
        .ToResponse();
  }
  std::vector<std::shared_ptr<net::http::ResponseStream>> streams;
  auto refuse = [&](net::http::Response reply) {
    for (auto& s : streams) s->Cancel();
    if (reply.stream) reply.stream->Cancel();
    reply.stream.reset();
    return reply;
  };
  for (size_t i = 0; i < targets.size(); ++i) {
    net::http::Request child = request;
    child.target = targets[i];
    net::http::internal::ParseTarget(child.target, &child.path, &child.query);
    if (child.path.rfind("/api/", 0) != 0 && child.path.rfind("/apis/", 0) != 0) {
      return refuse(
          ApiError::BadRequest(fmt::format("watch[{}]: {} is not an API path", i, child.path))
              .ToResponse());
    }
    RequestLabels labels{"GET", "", ""};
    net::http::Response reply = Route(child, labels);
    if (reply.status != 200 || !reply.stream || labels.verb != "WATCH") {
      if (reply.status == 200) {
        reply = ApiError::BadRequest(
                    fmt::format("watch[{}]: {} is not a watch (watch=true)", i, child.target))
                    .ToResponse();
      }
      return refuse(std::move(reply));
    }
    streams.push_back(metrics_->CountOpenWatch(std::move(reply.stream), labels.resource));
  }
  net::http::Response r;
  r.content_type = "application/x-ndjson";
  r.stream = std::make_shared<MultiplexedWatch>(std::move(streams));
  return r;
}

}  // namespace etna::api::server
