#include "api/server/pod_run_retention.h"

#include <string>
#include <vector>

#include "api/types/pod_run.h"

namespace etna::api::server {

PodRunRetention::~PodRunRetention() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (sweeper_.joinable()) sweeper_.join();
}

Result<size_t> PodRunRetention::Sweep() {
  const resources::ResourceInfo* runs =
      objects_->registry().Find("accounting.etna.io", "v1", "podruns");
  if (runs == nullptr) return size_t{0};
  const TimeMs cutoff = clock_->NowMs() - retention_.count();
  std::vector<std::string> expired;
  Status listed = objects_->ForEach(*runs, "", [&](const nlohmann::json& object) {
    const types::PodRun run(object);
    if (TimeMs ended = run.ended_ms(); ended >= 0 && ended < cutoff) expired.push_back(run.name());
  });
  if (!listed.ok()) return listed;
  size_t deleted = 0;
  for (const std::string& name : expired) {
    auto result = objects_->Delete(*runs, "", name, DeleteOptions{});
    if (result.ok()) {
      ++deleted;
    } else if (result.error().code != 404) {
      return Status::Unavailable("deleting expired PodRun " + name + ": " + result.error().message);
    }
  }
  return deleted;
}

void PodRunRetention::Start(std::chrono::milliseconds period) {
  sweeper_ = std::thread([this, period] {
    for (;;) {
      (void)Sweep();  // a failed sweep is retried at the next period
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, period, [this] { return stop_; })) return;
    }
  });
}

}  // namespace etna::api::server
