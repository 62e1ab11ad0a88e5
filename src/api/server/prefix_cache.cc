// PrefixCache (prefix_cache.h).
#include "api/server/prefix_cache.h"

#include "api/server/stored_object.h"

namespace etna::api::server {

PrefixCache::~PrefixCache() {
  if (watcher_) watcher_->Cancel();
}

Status PrefixCache::ListLocked() {
  items_.reset();
  ++changes_;
  if (watcher_) watcher_->Cancel();
  watcher_.reset();
  auto list = store_->List(prefix_, 0, "", 0);
  if (!list.ok()) return list.status();
  std::map<std::string, nlohmann::json> out;
  for (const auto& kv : list->items) {
    auto object = DecodeStored(kv.value, kv.mod_revision);
    if (object.ok()) out.emplace(kv.key, std::move(object).value());
  }
  auto watcher = store_->Watch(prefix_, list->revision);
  // Without a watch nothing can tell a later write: the objects serve this call only.
  if (watcher.ok()) watcher_ = std::move(watcher).value();
  items_ = std::move(out);
  return Status::Ok();
}

Status PrefixCache::RefreshLocked() {
  if (!items_ || !watcher_) return ListLocked();
  for (;;) {
    auto event = watcher_->Next(std::chrono::milliseconds(0));
    if (!event.ok()) return ListLocked();  // closed (an overflow, a compaction)
    if (!*event) return Status::Ok();
    const store::Event& e = **event;
    ++changes_;
    if (e.type == store::EventType::kDeleted) {
      items_->erase(e.key);
      continue;
    }
    auto object = DecodeStored(e.value, e.revision);
    if (object.ok()) {
      (*items_)[e.key] = std::move(object).value();
    } else {
      items_->erase(e.key);
    }
  }
}

Result<std::vector<nlohmann::json>> PrefixCache::List() {
  std::lock_guard<std::mutex> lock(mu_);
  ETNA_RETURN_IF_ERROR(RefreshLocked());
  std::vector<nlohmann::json> out;
  out.reserve(items_->size());
  for (const auto& [key, object] : *items_) out.push_back(object);
  if (!watcher_) items_.reset();  // no watch: the next call lists again
  return out;
}

Result<std::optional<nlohmann::json>> PrefixCache::Find(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ETNA_RETURN_IF_ERROR(RefreshLocked());
  std::optional<nlohmann::json> found;
  // Keys are the prefix and the name (store::ClusterKey, store::ObjectKey).
  if (auto it = items_->find(prefix_ + name); it != items_->end()) found = it->second;
  if (!watcher_) items_.reset();
  return found;
}

Status PrefixCache::ForEach(const std::function<void(const nlohmann::json&)>& fn) {
  std::lock_guard<std::mutex> lock(mu_);
  ETNA_RETURN_IF_ERROR(RefreshLocked());
  for (const auto& [key, object] : *items_) fn(object);
  if (!watcher_) items_.reset();
  return Status::Ok();
}

Result<uint64_t> PrefixCache::Changes() {
  std::lock_guard<std::mutex> lock(mu_);
  ETNA_RETURN_IF_ERROR(RefreshLocked());
  if (!watcher_) items_.reset();
  return changes_;
}

}  // namespace etna::api::server
