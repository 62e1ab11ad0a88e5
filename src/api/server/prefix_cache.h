// PrefixCache: the decoded objects under one store prefix, kept between requests and read again
// only after the store reported a write under the prefix. Admission reads a few small kinds on
// every pod create (PriorityClasses, the seed's scheduler ConfigMap, Queues, QueueBindings), and
// every namespaced create reads its Namespace; without this each create read them from the store.
//
// Consistency: a watch from the listed revision tells of every later write. The in-process stores
// queue the event on the writing thread before the write returns, so a read after a write on
// this server always sees it; a store whose events arrive later (etcd) is as fresh as its watch.
//
// Thread-safety: every method may be called concurrently.
#pragma once

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

 private:
  // Lists again when stale; items_ is then current (or the error is returned).
  Status RefreshLocked();

  // Whether the watch reported a write (or ended) since the last list; drains it.
  bool StaleLocked();

  store::Store* store_;
  const std::string prefix_;
  std::mutex mu_;
  std::shared_ptr<store::Watcher> watcher_;
  std::optional<std::vector<nlohmann::json>> items_;
};

}  // namespace etna::api::server
