#include "client/event_recorder.h"

#include <fmt/format.h>

#include <cstdio>

#include "common/time.h"

namespace etna::client {

using nlohmann::json;

EventRecorder::EventRecorder(client::RestClient* rest, const Clock* clock, std::string component)
    : rest_(rest), clock_(clock), component_(std::move(component)) {}

EventRecorder::~EventRecorder() { Stop(); }

void EventRecorder::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void EventRecorder::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EventRecorder::Record(const ObjectRef& object, const std::string& type,
                           const std::string& reason, const std::string& message) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() > 100000) return;  // the API is far behind: drop rather than grow
    queue_.push_back({object, type, reason, message});
  }
  cv_.notify_all();
}

void EventRecorder::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return (queue_.empty() && !busy_) || !thread_.joinable(); });
}

void EventRecorder::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty() && stop_) break;
    Item item = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Write(item);
    lock.lock();
    busy_ = false;
    cv_.notify_all();
  }
}

void EventRecorder::Write(const Item& item) {
  std::string key =
      fmt::format("{}|{}|{}", item.object.uid.empty() ? item.object.name : item.object.uid,
                  item.reason, item.message);
  std::string now = FormatRfc3339(clock_->NowMs());
  std::string ns = item.object.ns.empty() ? "default" : item.object.ns;
  Written* previous = nullptr;
  uint64_t seq;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = written_.find(key);
    if (it != written_.end()) previous = &it->second;
    seq = ++sequence_;
  }
  if (previous) {
    json patch = {{"count", previous->count + 1}, {"lastTimestamp", now}};
    auto r = rest_->MergePatch(client::Path("events", previous->ns, previous->name), patch);
    if (r.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      ++previous->count;
      return;
    }
    // Gone (expired or deleted): write a new one below.
  }
  std::string name = fmt::format("{}.{:x}{:04x}", item.object.name, clock_->NowMs(), seq & 0xffff);
  json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata", {{"name", name}, {"namespace", ns}}},
                {"involvedObject",
                 {{"kind", item.object.kind},
                  {"apiVersion", item.object.api_version},
                  {"namespace", item.object.ns},
                  {"name", item.object.name},
                  {"uid", item.object.uid}}},
                {"reason", item.reason},
                {"message", item.message},
                {"type", item.type},
                {"count", 1},
                {"firstTimestamp", now},
                {"lastTimestamp", now},
                {"source", {{"component", component_}}},
                {"reportingComponent", component_}};
  auto r = rest_->Create(client::Path("events", ns), event);
  if (!r.ok()) {
    std::fprintf(stderr, "scheduler: event %s on %s/%s: %s\n", item.reason.c_str(), ns.c_str(),
                 item.object.name.c_str(), r.status().message().c_str());
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  written_[key] = Written{ns, name, 1};
  if (written_.size() > 50000) written_.clear();  // bounded memory; repeats then start afresh
}

}  // namespace etna::client
