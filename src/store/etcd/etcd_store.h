// EtcdStore: the Store kept in an etcd cluster, as kube-apiserver keeps its objects.
//
// Every key lives in etcd under a prefix (/registry by default, so /pods/default/x is
// /registry/pods/default/x as in Kubernetes); revisions and resourceVersions are etcd's own.
// Writes are etcd transactions that compare the key's create or mod revision, so a stale update
// is a Conflict without a read; a transaction's ops all get the transaction's one revision.
//
// Watches: one etcd watch of the whole prefix (with the previous values, so a delete carries the
// last value) feeds a WatchHub and keeps the latest `history_events` events in memory, so every
// watcher of this process shares it. A watch that starts before that window reads etcd's own
// history first, then joins the shared stream; before etcd's compaction it is Gone, and so is
// one this server cannot place (no event has arrived since it started). A new server's shared
// watch starts 1,000 revisions back, not further: its writes wait behind that replay. A write
// returns once the shared watch has seen it, so a watcher always sees this process's own writes
// before their callers do. When the watch breaks it resumes from the last revision it saw on the
// next member; if etcd compacted past that meanwhile, every watcher is closed (re-list).
//
// Compaction follows kube-apiserver: every compaction_interval one server (agreed through the
// `compact_rev_key` key) compacts to the revision that was current an interval earlier.
//
// Thread-safety: every method may be called concurrently from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "store/etcd/etcd_client.h"
#include "store/revision_waiters.h"
#include "store/store.h"
#include "store/watch_hub.h"

namespace etna::store {

struct EtcdStoreOptions {
  EtcdClientOptions client;
  std::string prefix = "/registry";  // --etcd-prefix
  size_t watch_queue_capacity = 10000;
  size_t history_events = 20000;                  // events kept in memory for watches to replay
  std::chrono::seconds compaction_interval{300};  // --etcd-compaction-interval; 0: never
  std::chrono::milliseconds publish_wait{5000};   // a write's longest wait for its watch event
};

// What a multi-key transaction whose answer was lost did, told from its keys' states: `before`,
// each key's state it was guarded on (nullopt: absent), `planned`, each key's final value
// (nullopt: deleted), `now`. Applied (at the revision all its puts share) when every put value
// is there, written after `before`, and every deleted key is gone; not applied when every key is
// as it was; unknown otherwise (a later writer changed a key; a transaction of deletes only).
enum class LostTxnVerdict { kApplied, kNotApplied, kUnknown };
struct LostTxnOutcome {
  LostTxnVerdict verdict = LostTxnVerdict::kUnknown;
  Revision revision = 0;  // when applied
};
LostTxnOutcome JudgeLostTxn(const std::map<std::string, std::optional<KeyValue>>& before,
                            const std::map<std::string, std::optional<std::string>>& planned,
                            const std::map<std::string, std::optional<KeyValue>>& now);

class EtcdStore : public Store {
 public:
  // Connects (see EtcdClient::Connect) and starts following the prefix.
  static Result<std::unique_ptr<EtcdStore>> Open(EtcdStoreOptions options);
  ~EtcdStore() override;

  Result<Revision> Create(const std::string& key, const std::string& value) override;
  Result<Revision> Update(const std::string& key, const std::string& value,
                          Revision expected_revision) override;
  Result<DeleteResult> Delete(const std::string& key, Revision expected_revision) override;
  Result<std::vector<Revision>> Txn(const std::vector<TxnOp>& ops) override;
  Result<KeyValue> Get(const std::string& key) override;
  Result<ListResult> List(const std::string& prefix, size_t limit,
                          const std::string& continue_after_key, Revision at_revision) override;
  Result<std::shared_ptr<Watcher>> Watch(const std::string& prefix,
                                         Revision from_revision) override;
  Status Compact(Revision revision) override;
  // etcd's current revision (a linearizable read), once the shared watch has delivered every
  // event up to it: a watch from it misses nothing.
  Revision CurrentRevision() override;
  Revision CompactedRevision() override;

  // One round of the compaction policy (the background loop calls it every interval).
  Status RunCompactionPolicy();

 private:
  explicit EtcdStore(EtcdStoreOptions options);
  std::string EtcdKey(std::string_view key) const { return prefix_ + std::string(key); }
  struct WriteOutcome {
    Revision revision = 0;
    KeyValue deleted;  // for a delete: the object as it was
  };
  // One op as an etcd transaction guarded by the key's create or mod revision, with a read of
  // the key as its failure branch.
  etcdserverpb::TxnRequest GuardedTxn(const TxnOp& op) const;
  // Runs GuardedTxn(op); on failure the state the failure branch read is planned again to give
  // the same error the other backends give. A write whose outcome is unknown (its member went
  // away) is judged by WasApplied and sent again when it was not applied.
  Result<WriteOutcome> GuardedWrite(const TxnOp& op);
  // nullopt when `op` was certainly not applied; an error when that cannot be told.
  Result<std::optional<WriteOutcome>> WasApplied(const TxnOp& op);
  // A multi-key write whose outcome is unknown (its member went away) is judged by
  // JudgeLostTxn on what its keys hold now, and planned again when it was not applied.
  Result<std::vector<Revision>> MultiOpTxn(const std::vector<TxnOp>& ops);
  // The state of `keys` now, at one revision (absent keys: nullopt).
  Result<std::map<std::string, std::optional<KeyValue>>> ReadKeys(
      const std::vector<std::string>& keys, Revision* revision);
  // Waits until the shared watch has delivered `revision`.
  void AwaitDelivered(Revision revision);
  void NoteCompacted(Revision revision);

  // The shared watch (etcd_store_watch.cc).
  void FollowLoop();
  // Reads one stream until it ends; returns false when etcd compacted past where it resumed.
  bool FollowStream(EtcdClient::WatchStream& stream);
  void Publish(std::vector<Event> events, Revision progress);
  void RequestProgress();
  // A watch that starts before the in-memory window: etcd's history up to the window, then the
  // window and the live events.
  Result<std::shared_ptr<Watcher>> WatchFromHistory(const std::string& prefix, Revision from);
  std::optional<Event> ToEvent(const etcdserverpb::Event& e) const;
  void CompactorLoop();

  const EtcdStoreOptions options_;
  const std::string prefix_;  // without a trailing '/'
  std::unique_ptr<EtcdClient> client_;

  // The shared watch's state; publish_mu_ orders Publish against Watch's registration.
  std::mutex publish_mu_;
  RevisionWaiters delivered_waiters_;  // for delivered_
  WatchHub hub_;
  std::deque<Event> window_;  // every event after window_start_, in order
  Revision window_start_ = 0;
  Revision delivered_ = 0;  // everything up to here was delivered (events, progress)
  std::atomic<Revision> compacted_{0};

  std::mutex stream_mu_;  // guards the stream pointer and writes to it
  EtcdClient::WatchStream* stream_ = nullptr;
  std::atomic<bool> stop_{false};
  std::thread follower_;

  // etcd's revision, read linearizably; concurrent callers share one read (CurrentRevision).
  Result<Revision> ReadRevision();
  std::mutex read_mu_;
  std::condition_variable read_cv_;
  bool read_in_flight_ = false;
  uint64_t reads_started_ = 0, reads_finished_ = 0;
  Result<Revision> last_read_ = Revision{0};

  std::mutex compactor_mu_;
  std::condition_variable compactor_cv_;
  int64_t compact_time_ = 0;   // the compact_rev_key version last seen
  Revision compact_next_ = 0;  // what the next round compacts to
  std::thread compactor_;
};

}  // namespace etna::store
