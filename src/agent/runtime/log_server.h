// The agent's HTTP endpoints (served with api/http/server.h on the port the Node advertises in
// daemonEndpoints): /containerLogs/<ns>/<pod>/<container>?tailLines=&limitBytes=&follow=
// &previous= (what the API server proxies `kubectl logs` to; follow streams until the run
// ends), /healthz (200 "ok" while the process serves), /readyz (200 "ok" once `not_ready`
// returns "", else 503 with its reason), /gpus (the node's devices and their live readings,
// JSON) and /metrics (the same readings as dcgm-exporter writes them, gpu/dcgm_metrics.h).
// Thread-safety: the handler is called concurrently; it only reads through Runtime::LogPath
// and the given functions, all of which must be thread-safe.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "agent/runtime/runtime.h"
#include "api/http/message.h"

namespace etna::agent::runtime {

struct LogQuery {
  std::optional<int64_t> tail_lines;
  std::optional<int64_t> limit_bytes;
  bool follow = false;
  bool previous = false;
};

// The part of `content` the query selects (tail, then limit), without following.
std::string SelectLog(const std::string& content, const LogQuery& query);

api::http::Handler MakeAgentHandler(const Runtime* runtime,
                                    std::function<nlohmann::json()> gpu_report,
                                    std::function<std::string()> metrics,
                                    std::function<std::string()> not_ready);

}  // namespace etna::agent::runtime
