// CachedStore: a Store that answers Get and List from memory — kube-apiserver's watch cache. It
// holds the latest value of every key, fed by one watch of the whole store beneath it; writes,
// watches and compaction go to the store beneath unchanged.
//
// Reads are consistent, never stale: a Get or a List at the latest revision first waits until
// the cache has applied every revision the store beneath had made current when the read began,
// and every revision a write through this CachedStore returned. A List at an older revision (a
// continued page after later writes) and any read while the cache is rebuilding or stopped go
// to the store beneath, which keeps the history.
//
// The watch's queue overflowing (the applier fell more than its capacity behind) or closing
// makes the cache rebuild itself from a fresh list and watch; reads meanwhile go beneath.
//
// Thread-safety: every method may be called concurrently from any thread.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <thread>

#include "store/revision_waiters.h"
#include "store/store.h"

namespace etna::store {

struct CachedStoreOptions {
  // The longest a read waits for the cache to catch up before it reads the store beneath.
  std::chrono::milliseconds catch_up_timeout{2000};
};

class CachedStore : public Store {
 public:
  // Lists `backing` and starts following it. `owned`, when given, is `backing` itself, kept and
  // destroyed after the cache stops.
  static Result<std::unique_ptr<CachedStore>> Open(Store* backing,
                                                   std::unique_ptr<Store> owned = nullptr,
                                                   CachedStoreOptions options = {});
  ~CachedStore() override;

  Result<Revision> Create(const std::string& key, const std::string& value) override;
  Result<Revision> Update(const std::string& key, const std::string& value,
                          Revision expected_revision) override;
  Result<DeleteResult> Delete(const std::string& key, Revision expected_revision) override;
  Result<std::vector<Revision>> Txn(const std::vector<TxnOp>& ops) override;
  Result<KeyValue> Get(const std::string& key) override;
  Result<ListResult> List(const std::string& prefix, size_t limit,
                          const std::string& continue_after_key, Revision at_revision) override;
  Result<Revision> Visit(const std::string& prefix, const std::string& continue_after_key,
                         Revision at_revision, const std::function<bool(const KeyValueRef&)>& visit,
                         size_t expected = 0) override;
  Result<std::shared_ptr<Watcher>> Watch(const std::string& prefix,
                                         Revision from_revision) override;
  Status Compact(Revision revision) override;
  Revision CurrentRevision() override;
  Revision CompactedRevision() override;

  // The revision the cache has applied.
  Revision AppliedRevision() const { return applied_.load(); }
  // How many times the cache rebuilt itself after its watch failed (for tests and metrics).
  uint64_t Rebuilds() const { return rebuilds_.load(); }

 private:
  struct Entry {
    std::string value;
    Revision create_revision = 0;
    Revision mod_revision = 0;
  };

  CachedStore(Store* backing, std::unique_ptr<Store> owned, CachedStoreOptions options);
  // Lists everything beneath and opens the watch that follows it.
  Status Build();
  void ApplierLoop();
  void Apply(std::vector<Event>& events);
  void SetApplied(Revision revision);
  // Waits until the cache holds everything a read starting now must see; false when it does not
  // within the timeout (or is rebuilding): read beneath.
  bool CatchUp();
  void NoteWritten(Revision revision);
  // Hands `fn` the cached keys under `prefix` after `continue_after_key`, in key order, until it
  // returns false, under the read lock; the revision they are at, or nullopt when the read must
  // go beneath (the cache has not caught up, or `at_revision` is another one).
  std::optional<Revision> ScanCached(
      const std::string& prefix, const std::string& continue_after_key, Revision at_revision,
      const std::function<bool(const std::string&, const Entry&)>& fn);

  Store* const backing_;
  std::unique_ptr<Store> owned_;
  const CachedStoreOptions options_;

  mutable std::shared_mutex entries_mu_;
  std::map<std::string, Entry, std::less<>> entries_;

  std::mutex applied_mu_;
  RevisionWaiters applied_waiters_;  // for applied_
  std::atomic<Revision> applied_{0};
  std::atomic<bool> serving_{false};  // false while (re)building: reads go beneath
  std::atomic<Revision> written_{0};  // the highest revision a write through here returned

  std::mutex watcher_mu_;  // guards the pointer: the applier replaces it, the destructor cancels it
  std::shared_ptr<Watcher> watcher_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> rebuilds_{0};
  std::thread applier_;
};

}  // namespace etna::store
