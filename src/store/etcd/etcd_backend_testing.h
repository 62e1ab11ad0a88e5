// The etcd backends of the store contract suite: EtcdStore on a one-member etcd started for the
// test's directory (reopening the same directory reuses the same etcd and its data, as reopening
// a SQLite file does), bare and behind the watch cache as `etna server --etcd-servers` runs it.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "store/cached_store.h"
#include "store/etcd/etcd_store.h"
#include "store/etcd/etcd_testing.h"

namespace etna::store::testing {

// One etcd per directory, kept while the test uses that directory: reopening reuses it, and a
// new directory (the next test) stops the previous one.
inline EtcdCluster* EtcdFor(const std::string& dir) {
  static std::map<std::string, std::unique_ptr<EtcdCluster>> clusters;
  if (!clusters.count(dir)) clusters.clear();
  auto& cluster = clusters[dir];
  if (!cluster) {
    auto started = EtcdCluster::Start(1, dir + "/etcd", /*fsync=*/false);
    EXPECT_TRUE(started.ok()) << started.status().ToString();
    if (started.ok()) cluster = std::move(started).value();
  }
  return cluster.get();
}

// An EtcdStore on `etcd` for tests: a generous dial timeout (members may still be electing),
// no background compaction.
inline std::unique_ptr<EtcdStore> OpenTestEtcdStore(const EtcdCluster& etcd, size_t watch_capacity,
                                                    size_t history_events = 20000) {
  EtcdStoreOptions o;
  o.client.endpoints = etcd.ClientUrls();
  o.client.dial_timeout = std::chrono::seconds(20);
  o.watch_queue_capacity = watch_capacity;
  o.history_events = history_events;
  o.compaction_interval = std::chrono::seconds(0);
  auto s = EtcdStore::Open(o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

struct EtcdBackend {
  static std::unique_ptr<Store> Make(const std::string& dir, size_t watch_capacity) {
    EtcdCluster* etcd = EtcdFor(dir);
    if (!etcd) return nullptr;
    return OpenTestEtcdStore(*etcd, watch_capacity);
  }
};

struct CachedEtcdBackend {
  static std::unique_ptr<Store> Make(const std::string& dir, size_t watch_capacity) {
    std::unique_ptr<Store> etcd = EtcdBackend::Make(dir, watch_capacity);
    if (!etcd) return nullptr;
    Store* backing = etcd.get();
    auto s = CachedStore::Open(backing, std::move(etcd));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::unique_ptr<Store>(std::move(s).value()) : nullptr;
  }
};

}  // namespace etna::store::testing
