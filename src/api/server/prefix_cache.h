// PrefixCache: the decoded objects under one store prefix, kept between requests and brought up
// to date from the store's watch: each write under the prefix is decoded once, when the cache is
// next read (a closed watch — an overflow, a compaction — lists again). Admission reads a few
// small kinds on every pod create (PriorityClasses, the seed's scheduler ConfigMap, Queues,
// QueueBindings, its ServiceAccount), and every namespaced create reads its Namespace; the
// metrics APIs read every pod; without this each of them read the store (on etcd, a round trip).
//
// Consistency: a watch from the listed revision tells of every later write. The in-process stores
// queue the event on the writing thread before the write returns, so a read after a write on
// this server always sees it; a store whose events arrive later (etcd) is as fresh as its watch.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/store.h"

namespace etna::api::server {

class PrefixCache {
 public:
  PrefixCache(store::Store* store, std::string prefix)
      : store_(store), prefix_(std::move(prefix)) {}
  ~PrefixCache();
  PrefixCache(const PrefixCache&) = delete;
  PrefixCache& operator=(const PrefixCache&) = delete;

  // Every object under the prefix, in key order, as DecodeStored gives it.
  Result<std::vector<nlohmann::json>> List();
  // The one named `name` (metadata.name), nullopt when there is none; copies only that one.
  Result<std::optional<nlohmann::json>> Find(const std::string& name);
  // Calls `fn` on every object, in key order, under the cache's lock (no copies): `fn` must not
  // call back into the cache.
  Status ForEach(const std::function<void(const nlohmann::json&)>& fn);
  // A count that grows with every change the cache applied (brought up to date first): two
  // equal answers mean the objects did not change in between (RBAC rebuilds its view on a
  // new one).
  Result<uint64_t> Changes();

 private:
  // Applies the watch's events; lists again when there is no watch or it ended. items_ is then
  // current (or the error is returned).
  Status RefreshLocked();
  Status ListLocked();

  store::Store* store_;
  const std::string prefix_;
  std::mutex mu_;
  std::shared_ptr<store::Watcher> watcher_;
  std::optional<std::map<std::string, nlohmann::json>> items_;  // by key
  uint64_t changes_ = 0;
};

}  // namespace etna::api::server
