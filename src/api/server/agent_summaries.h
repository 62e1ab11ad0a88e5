// The agents' usage summaries (GET /stats/summary of each node's agent, agent/stats_summary.h)
// that the metrics APIs read, as metrics-server scrapes kubelets: fetched when a request needs
// a node's and reused while younger than `max_age_ms` (one fetch per node however many HPAs and
// `kubectl top`s ask at once); when any node of a request is stale, all of its nodes are
// fetched again, in parallel (at most 16 at a time), so one answer holds readings of one moment;
// each fetch has a short timeout so a hung agent cannot hold a request.
// Thread-safety: For may be called concurrently; a node being fetched is fetched once and the
// other callers wait for it.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/status.h"

namespace etna::api::server {

// Fetches the summary from the agent of `node` (the Node object).
using SummaryFetcher = std::function<Result<nlohmann::json>(const nlohmann::json& node)>;

// The default fetcher: the agent's address and port from the Node's status, plain HTTP, 3 s
// timeout (pod_subresources.cc, beside the other agent connections).
Result<nlohmann::json> FetchSummaryFromAgent(const nlohmann::json& node);

class AgentSummaries {
 public:
  AgentSummaries(SummaryFetcher fetch, const Clock* clock, TimeMs max_age_ms = 1000);
  // Reads a Node object by name (only for the nodes whose summary is fetched).
  using NodeLookup = std::function<Result<nlohmann::json>(const std::string& name)>;
  // By node name, for each of `names`: its summary, or why its agent gave none.
  std::map<std::string, Result<nlohmann::json>> For(const std::vector<std::string>& names,
                                                    const NodeLookup& node);

 private:
  struct Entry {
    TimeMs fetched_ms = -1;
    bool fetching = false;
    Result<nlohmann::json> summary = Status::Unavailable("not fetched");
  };
  SummaryFetcher fetch_;
  const Clock* clock_;
  TimeMs max_age_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Entry> entries_;
};

}  // namespace etna::api::server
