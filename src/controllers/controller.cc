#include "controllers/controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <set>

#include "controllers/shared_informers.h"

namespace etna::controllers {

using nlohmann::json;

std::string KeyOf(const json& object) {
  return object.value("/metadata/namespace"_json_pointer, std::string()) + "/" +
         object.value("/metadata/name"_json_pointer, std::string());
}

std::pair<std::string, std::string> SplitKey(const std::string& key) {
  size_t slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

Controller::Controller(std::string name, ControllerOptions options)
    : name_(std::move(name)),
      options_(std::move(options)),
      clock_(options_.clock ? options_.clock : &system_clock_),
      own_metrics_(options_.metrics ? nullptr
                                    : std::make_unique<ControllerMetrics>(&own_registry_)),
      metrics_(options_.metrics ? options_.metrics : own_metrics_.get()),
      transport_(options_.factory()),
      rest_(transport_.get()),
      events_(&rest_, clock_, name_),
      queue_(clock_) {
  queue_.SetBackoff(options_.backoff_initial, options_.backoff_max);
  events_.Start();
}

Controller::~Controller() {
  Stop();
  events_.Stop();
}

client::Informer* Controller::Watch(const std::string& path, Handler handler) {
  if (!handler) {
    handler = [this](const std::string&, const json& object) { queue_.Add(KeyOf(object)); };
  }
  if (informers_.empty()) primary_handler_ = handler;
  if (options_.informers) {
    informers_.push_back(options_.informers->Get(path, std::move(handler)));
    return informers_.back();
  }
  informer_transports_.push_back(options_.factory());
  client::InformerOptions io;
  io.path = path;
  own_informers_.push_back(std::make_unique<client::Informer>(informer_transports_.back().get(),
                                                              std::move(io), std::move(handler)));
  informers_.push_back(own_informers_.back().get());
  return informers_.back();
}

bool Controller::Start(std::chrono::milliseconds sync_timeout) {
  bool synced = StartInformers(sync_timeout);
  StartWorkers();
  return synced;
}

bool Controller::StartInformers(std::chrono::milliseconds sync_timeout) {
  for (auto& informer : informers_) informer->Start();
  bool synced = true;
  for (auto& informer : informers_) synced = informer->WaitForSync(sync_timeout) && synced;
  return synced;
}

void Controller::StartWorkers() {
  if (!workers_.empty()) return;
  for (int i = 0; i < std::max(1, options_.workers); ++i) {
    workers_.emplace_back([this, i] { RunWorker(i); });
  }
}

void Controller::Stop() {
  if (stop_.exchange(true)) return;
  queue_.ShutDown();
  for (auto& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
  for (auto& informer : own_informers_) informer->Stop();  // shared ones stop with their owner
}

void Controller::RunWorker(int index) {
  auto next_resync = std::chrono::steady_clock::now() + options_.resync_period;
  while (!stop_) {
    if (index == 0 && !informers_.empty() && std::chrono::steady_clock::now() >= next_resync) {
      // Read in place (a resync of 100,000 jobs copied them all): the primary handler only
      // enqueues keys, so it may run under the informer's lock.
      informers_.front()->ForEach(
          [this](const json& object) { primary_handler_("RESYNC", object); });
      next_resync = std::chrono::steady_clock::now() + options_.resync_period;
    }
    auto key = queue_.Get(std::chrono::milliseconds(100));
    if (key) ProcessKey(*key);
  }
}

void Controller::ProcessKey(const std::string& key) {
  Status status;
  try {
    status = Reconcile(key);
  } catch (const std::exception& e) {  // malformed objects must not end the controller
    status = Status::Internal(std::string("unexpected object: ") + e.what());
  }
  if (status.ok()) {
    queue_.Forget(key);
  } else {
    if (status.code() != StatusCode::kConflict) {
      std::fprintf(stderr, "%s: %s: %s\n", name_.c_str(), key.c_str(), status.ToString().c_str());
    }
    queue_.AddRateLimited(key);
  }
  queue_.Done(key);
}

int Controller::SyncOnce() {
  for (auto& informer : informers_) informer->SyncNow();
  queue_.RetryNow();  // driven synchronously, delayed keys (AddAfter) are due at once
  std::set<std::string> reconciled;  // each key once a call, even one a reconcile re-adds
  while (auto key = queue_.Get(std::chrono::milliseconds(0))) {
    if (!reconciled.insert(*key).second) {
      queue_.Done(*key);
      queue_.Add(*key);
      break;
    }
    ProcessKey(*key);
  }
  queue_.RetryNow();  // the failed keys: the next call reconciles them again
  return static_cast<int>(reconciled.size());
}

bool SyncUntilIdle(const std::vector<Controller*>& controllers, int max_rounds) {
  for (int round = 0; round < max_rounds; ++round) {
    int reconciles = 0;
    for (Controller* c : controllers) reconciles += c->SyncOnce();
    if (reconciles == 0) return true;
  }
  return false;
}

}  // namespace etna::controllers
