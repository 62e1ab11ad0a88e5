#include "client/informer.h"

#include <fmt/format.h>

namespace etna::client {
namespace {

using nlohmann::json;

std::string KeyOf(const json& object) {
  return object.value("/metadata/namespace"_json_pointer, std::string()) + "/" +
         object.value("/metadata/name"_json_pointer, std::string());
}

std::string ResourceVersionOf(const json& object) {
  return object.value("/metadata/resourceVersion"_json_pointer, std::string());
}

// What the cache keeps of `object` under InformerOptions::cache_objects = false.
json MetadataOnly(const json& object) {
  json meta = json::object();
  if (auto it = object.find("metadata"); it != object.end() && it->is_object()) {
    for (const char* field : {"namespace", "name", "uid", "resourceVersion"}) {
      if (auto f = it->find(field); f != it->end()) meta[field] = *f;
    }
  }
  return {{"metadata", std::move(meta)}};
}

std::string Escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace

Informer::Informer(Transport* transport, InformerOptions options, Handler handler)
    : transport_(transport), options_(std::move(options)) {
  if (handler) handlers_.push_back(std::move(handler));
}

void Informer::AddHandler(Handler handler) { handlers_.push_back(std::move(handler)); }

Informer::~Informer() { Stop(); }

void Informer::Start() {
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = false;
  }
  transport_->Resume();
  thread_ = std::thread([this] { Run(); });
}

void Informer::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  transport_->Cancel();
  if (thread_.joinable()) thread_.join();
}

bool Informer::WaitForSync(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return synced_ || stop_; }) && synced_;
}

std::vector<json> Informer::List() const {
  std::lock_guard lock(mu_);
  std::vector<json> out;
  for (const auto& [key, object] : cache_) out.push_back(object);
  return out;
}

void Informer::ForEach(const std::function<void(const json&)>& fn) const {
  std::lock_guard lock(mu_);
  for (const auto& [key, object] : cache_) fn(object);
}

void Informer::ForEachInNamespace(const std::string& ns,
                                  const std::function<void(const json&)>& fn) const {
  const std::string prefix = ns + "/";
  std::lock_guard lock(mu_);
  for (auto it = cache_.lower_bound(prefix);
       it != cache_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    fn(it->second);
  }
}

std::optional<json> Informer::Get(const std::string& ns, const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = cache_.find(ns + "/" + name);
  if (it == cache_.end()) return std::nullopt;
  return it->second;
}

std::string Informer::Query(bool watch, int timeout_seconds) const {
  std::string q;
  auto add = [&](const std::string& k, const std::string& v) {
    q += (q.empty() ? "?" : "&") + k + "=" + Escape(v);
  };
  if (!options_.label_selector.empty()) add("labelSelector", options_.label_selector);
  if (!options_.field_selector.empty()) add("fieldSelector", options_.field_selector);
  if (watch) {
    add("watch", "true");
    add("resourceVersion", rv_);
    add("timeoutSeconds", std::to_string(timeout_seconds));
  }
  return q;
}

void Informer::SleepBackoff() {
  backoff_ = backoff_.count() == 0 ? options_.backoff_initial
                                   : std::min(options_.backoff_max, backoff_ * 2);
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, backoff_, [&] { return stop_; });
}

bool Informer::Relist() {
  auto reply = transport_->Do("GET", options_.path + Query(false));
  if (!reply.ok() || reply->status != 200) return false;
  json list = json::parse(reply->body, nullptr, false);
  if (list.is_discarded() || !list.contains("items")) return false;
  ++lists_;
  std::map<std::string, json> fresh;
  for (auto& item : list["items"]) {
    std::string key = KeyOf(item);  // before the move: the right side is evaluated first
    fresh[key] = std::move(item);
  }
  std::vector<std::pair<std::string, json>> events;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, old] : cache_) {
      if (!fresh.count(key)) events.emplace_back("DELETED", old);
    }
    for (const auto& [key, object] : fresh) {
      auto it = cache_.find(key);
      if (it == cache_.end()) {
        events.emplace_back("ADDED", object);
      } else if (ResourceVersionOf(it->second) != ResourceVersionOf(object)) {
        events.emplace_back("MODIFIED", object);
      }
    }
    if (!options_.cache_objects) {
      for (auto& [key, object] : fresh) object = MetadataOnly(object);  // the events have copies
    }
    cache_ = std::move(fresh);
    rv_ = list.value("/metadata/resourceVersion"_json_pointer, std::string());
  }
  for (const auto& [type, object] : events) {
    for (const auto& handler : handlers_) handler(type, object);
  }
  {
    std::lock_guard lock(mu_);
    synced_ = true;
  }
  cv_.notify_all();
  return true;
}

void Informer::Apply(const std::string& type, json object) {
  const json* delivered = &object;
  {
    std::lock_guard lock(mu_);
    rv_ = ResourceVersionOf(object);
    if (type == "DELETED") {
      cache_.erase(KeyOf(object));
    } else if (!options_.cache_objects) {
      cache_[KeyOf(object)] = MetadataOnly(object);
    } else {
      json& stored = cache_[KeyOf(object)];
      stored = std::move(object);
      delivered = &stored;
    }
  }
  for (const auto& handler : handlers_) handler(type, *delivered);
}

bool Informer::WatchOnce(bool* failed, int timeout_seconds) {
  bool expired = false;
  std::string target = options_.path + Query(true, timeout_seconds);
  auto status = transport_->Watch(target, [&](std::string_view line) {
    json event = json::parse(line, nullptr, false);
    if (event.is_discarded() || !event.is_object()) return;
    std::string type = event.value("type", "");
    const json& object = event["object"];
    if (type == "ERROR") {
      expired = expired || object.value("code", 0) == 410;
      return;
    }
    if (type == "BOOKMARK") {
      std::lock_guard lock(mu_);
      rv_ = ResourceVersionOf(object);
      return;
    }
    if (type == "ADDED" || type == "MODIFIED" || type == "DELETED") {
      Apply(type, std::move(event["object"]));
    }
  });
  *failed = !status.ok();
  if (status.ok() && *status == 410) return true;
  if (status.ok() && *status != 200) *failed = true;
  return expired;
}

bool Informer::SyncNow() {
  if (lists_ == 0) return Relist();
  bool failed = false;
  if (WatchOnce(&failed, /*timeout_seconds=*/0)) return Relist();  // expired
  return !failed;
}

void Informer::Run() {
  bool need_list;
  {
    std::lock_guard lock(mu_);
    need_list = !synced_;  // restarted: resume the watch where it stopped
  }
  while (true) {
    {
      std::lock_guard lock(mu_);
      if (stop_) return;
    }
    if (need_list) {
      if (!Relist()) {
        SleepBackoff();
        continue;
      }
      need_list = false;
    }
    bool failed = false;
    need_list = WatchOnce(&failed, options_.watch_timeout_seconds);
    if (failed) {
      SleepBackoff();
    } else {
      backoff_ = std::chrono::milliseconds(0);
    }
  }
}

}  // namespace etna::client
