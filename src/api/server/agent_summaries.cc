#include "api/server/agent_summaries.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace etna::api::server {

using nlohmann::json;

AgentSummaries::AgentSummaries(SummaryFetcher fetch, const Clock* clock, TimeMs max_age_ms)
    : fetch_(std::move(fetch)), clock_(clock), max_age_ms_(max_age_ms) {}

std::map<std::string, Result<json>> AgentSummaries::For(const std::vector<std::string>& names,
                                                        const NodeLookup& node) {
  std::vector<std::string> mine;  // stale nodes this call fetches
  {
    std::lock_guard<std::mutex> lock(mu_);
    TimeMs now = clock_->NowMs();
    bool stale = false;
    for (const std::string& name : names) {
      const Entry& e = entries_[name];
      stale = stale || (!e.fetching && (e.fetched_ms < 0 || now - e.fetched_ms >= max_age_ms_));
    }
    // One stale node refreshes them all: the answer is one moment's readings, not fresh
    // readings of some pods beside older ones of the others (an HPA summing them would see a
    // load that never was).
    for (size_t i = 0; stale && i < names.size(); ++i) {
      Entry& e = entries_[names[i]];
      if (e.fetching) continue;
      e.fetching = true;
      mine.push_back(names[i]);
    }
  }
  std::vector<Result<json>> fetched(mine.size(), Status::Unavailable("not fetched"));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < mine.size(); i = next++) {
      auto object = node(mine[i]);
      fetched[i] = object.ok() ? fetch_(*object) : Result<json>(object.status());
    }
  };
  std::vector<std::thread> threads;
  size_t parallel = std::min<size_t>(16, mine.size());
  for (size_t t = 1; t < parallel; ++t) threads.emplace_back(worker);
  if (parallel > 0) worker();
  for (auto& t : threads) t.join();

  std::unique_lock<std::mutex> lock(mu_);
  TimeMs now = clock_->NowMs();
  for (size_t i = 0; i < mine.size(); ++i) {
    Entry& e = entries_[mine[i]];
    e.summary = std::move(fetched[i]);
    e.fetched_ms = now;
    e.fetching = false;
  }
  cv_.notify_all();
  std::map<std::string, Result<json>> out;
  for (const std::string& name : names) {
    cv_.wait(lock, [&] { return !entries_[name].fetching; });
    out.emplace(name, entries_[name].summary);
  }
  // Nodes that left the cluster are forgotten once their entry is old.
  for (auto it = entries_.begin(); it != entries_.end();) {
    bool old = !it->second.fetching && now - it->second.fetched_ms > 60 * max_age_ms_ + 60'000;
    it = old ? entries_.erase(it) : std::next(it);
  }
  return out;
}

}  // namespace etna::api::server
