// PrefixCache (prefix_cache.h).
#include "api/server/prefix_cache.h"

#include "api/server/stored_object.h"

namespace etna::api::server {

PrefixCache::~PrefixCache() {
  if (watcher_) watcher_->Cancel();
}

bool PrefixCache::StaleLocked() {
  if (!items_ || !watcher_) return true;
  bool stale = false;
  for (;;) {
    auto event = watcher_->Next(std::chrono::milliseconds(0));
    if (!event.ok()) {  // closed (an overflow, a compaction): list again
      watcher_.reset();
      return true;
    }
    if (!*event) return stale;
    stale = true;
  }
}

Status PrefixCache::RefreshLocked() {
  if (!StaleLocked()) return Status::Ok();
  items_.reset();
  if (watcher_) watcher_->Cancel();
  watcher_.reset();
  auto list = store_->List(prefix_, 0, "", 0);
  if (!list.ok()) return list.status();
  std::vector<nlohmann::json> out;
  out.reserve(list->items.size());
  for (const auto& kv : list->items) {
    auto object = DecodeStored(kv.value, kv.mod_revision);
    if (object.ok()) out.push_back(std::move(object).value());
  }
  auto watcher = store_->Watch(prefix_, list->revision);
  // Without a watch nothing can tell a later write: the objects serve this call only.
  if (watcher.ok()) watcher_ = std::move(watcher).value();
  items_ = std::move(out);
  return Status::Ok();
}

Result<std::vector<nlohmann::json>> PrefixCache::List() {
  std::lock_guard<std::mutex> lock(mu_);
  ETNA_RETURN_IF_ERROR(RefreshLocked());
  return *items_;
}

Result<std::optional<nlohmann::json>> PrefixCache::Find(const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  ETNA_RETURN_IF_ERROR(RefreshLocked());
  for (const nlohmann::json& object : *items_) {
    if (object.value("/metadata/name"_json_pointer, std::string()) == name)
      return std::optional<nlohmann::json>(object);
  }
  return std::optional<nlohmann::json>();
}

}  // namespace etna::api::server
