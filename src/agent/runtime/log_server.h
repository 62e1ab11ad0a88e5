// The agent's HTTP endpoints (served with net/http/server.h on the port the Node advertises in
// daemonEndpoints): /containerLogs/<ns>/<pod>/<container>?tailLines=&limitBytes=&follow=
// &previous=&sinceSeconds= (what the API server proxies `kubectl logs` to; follow streams until
// the run ends; previous is the container's run before the current one; sinceSeconds keeps the
// lines written in the last N seconds, from log_times.h), /healthz (200 "ok" while the process
// serves), /readyz (200 "ok" once `not_ready` returns "", else 503 with its reason), /gpus (the
// node's devices and their live readings, JSON), /metrics (the same readings as
// dcgm-exporter writes them, gpu/dcgm_metrics.h), /stats/summary (what the node and its
// pods use, as the kubelet's Summary API: stats_summary.h), /exec/<ns>/<pod>/<container>,
// /attach/<ns>/<pod>/<container> and /portForward/<ns>/<pod> (the remote command and
// port-forward protocols, remote_command.h and port_forward.h; only with the API server's
// permission).
// Thread-safety: the handler is called concurrently; it only reads through Runtime::LogPath
// and the given functions, all of which must be thread-safe.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "agent/runtime/runtime.h"
#include "net/http/message.h"

namespace etna::agent::runtime {

struct LogQuery {
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> limit_bytes;
  bool follow = false;
  bool previous = false;
  std::optional<TimeMs> since_ms;  // only lines written at or after this time (unix ms)
};

// Where the query's selection of `content` starts: since (by `times`, the log's side file of
// log_times.h), then the last tail_lines lines of what remains.
size_t SelectStart(const std::string& content, const LogQuery& query, std::string_view times);
// The part of `content` the query selects (since, tail, then limit), without following.
std::string SelectLog(const std::string& content, const LogQuery& query,
                      std::string_view times = {});

// What the endpoints besides the logs answer; an empty function answers an empty document.
struct AgentEndpoints {
  std::function<nlohmann::json()> gpu_report;     // /gpus
  std::function<std::string()> metrics;           // /metrics
  std::function<nlohmann::json()> stats_summary;  // /stats/summary
  std::function<std::string()> not_ready;         // /readyz: "" when ready
  // /exec and /portForward: whether the request carries the API server's permission for that
  // pod (by uid) and subresource ("exec", "attach", "portforward"); unset: every such request
  // is refused.
  std::function<Status(const net::http::Request&, const std::string& pod_uid,
                       const std::string& subresource)>
      authorize_stream;
};

net::http::Handler MakeAgentHandler(const Runtime* runtime, AgentEndpoints endpoints);

}  // namespace etna::agent::runtime
