// Test helpers for store tests: a temporary directory and every backend behind one factory
// interface, so one contract suite runs against MemoryStore, SqliteStore and the cached
// SqliteStore.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "store/cached_store.h"
#include "store/memory_store.h"
#include "store/sqlite_store.h"

namespace etna::store::testing {

// A fresh directory under the test temp dir, removed on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = ::testing::TempDir() + "etna-store-XXXXXX";
    path_ = mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct MemoryBackend {
  static std::unique_ptr<Store> Make(const std::string& /*dir*/, size_t watch_capacity) {
    return std::make_unique<MemoryStore>(watch_capacity);
  }
};

struct SqliteBackend {
  static std::unique_ptr<Store> Make(const std::string& dir, size_t watch_capacity) {
    SqliteStoreOptions o;
    o.data_dir = dir;
    o.watch_queue_capacity = watch_capacity;
    o.compaction_interval = std::chrono::seconds(0);
    auto s = SqliteStore::Open(o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::unique_ptr<Store>(std::move(s).value()) : nullptr;
  }
};

// SqliteStore behind the watch cache, as `etna server` runs it.
struct CachedSqliteBackend {
  static std::unique_ptr<Store> Make(const std::string& dir, size_t watch_capacity) {
    std::unique_ptr<Store> sqlite = SqliteBackend::Make(dir, watch_capacity);
    if (!sqlite) return nullptr;
    Store* backing = sqlite.get();
    auto s = CachedStore::Open(backing, std::move(sqlite));
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::unique_ptr<Store>(std::move(s).value()) : nullptr;
  }
};

// Drains every event available now (the watcher's queue is filled synchronously by writes).
inline std::vector<Event> DrainNow(Watcher& w) {
  std::vector<Event> out;
  while (true) {
    auto e = w.Next(std::chrono::milliseconds(0));
    if (!e.ok() || !e->has_value()) return out;
    out.push_back(std::move(**e));
  }
}

}  // namespace etna::store::testing
