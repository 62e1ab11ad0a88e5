// SqliteStore: the embedded, durable Store. One SQLite file in WAL mode with synchronous=FULL, so
// a returned revision survives kill -9 and power loss.
//
// Writes are group-committed: each writer enqueues its request and waits; one committer thread
// takes every queued request, applies them in one BEGIN IMMEDIATE..COMMIT (a failed precondition
// fails only its own request; an I/O error or a full disk fails the whole batch, which is then
// not on disk) and queues the batch's events on the watchers; a second thread then wakes those
// watchers and, after them, each writer with its own result. One fsync serves the whole batch,
// and the committer is never preempted by the threads it would wake (a woken thread usually
// takes the CPU at once: with hundreds of watchers that was most of a commit's time).
//
// Tables: kv (key → latest value), log (revision, key, type, value, create_rev, ts) for watch
// replay and lists at older revisions, meta (current and compacted revision). Compaction drops
// log rows at or below the compacted revision except each key's live row, so the state as of any
// revision >= compacted stays readable. The compaction policy keeps the last `keep_revisions`
// revisions and, when keep_duration > 0, also everything younger than keep_duration; it runs
// every compaction_interval and on demand (RunCompactionPolicy).
//
// Thread-safety: thread-safe. Reads use a pool of other connections, one per read in flight (WAL
// readers block neither the writer nor each other), so a long list does not hold up a get.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

#include "store/sqlite_db.h"
#include "store/store.h"
#include "store/watch_hub.h"
#include "store/write_plan.h"

namespace etna::store {

// An index on metadata.labels[label] of the objects under key_prefix: a VisitLabeled with a
// term on that label reads only the rows with its value, where a list scans every object under
// the prefix (an agent listing one job's pods read every pod of the namespace). Each write under
// the prefix pays for reading the label out of its JSON.
struct SqliteLabelIndex {
  std::string key_prefix;  // "/pods/"
  std::string label;       // "volcano.sh/job-name"
};

struct SqliteStoreOptions {
  std::string data_dir;  // created when missing; the API server's --data-dir
  std::string file_name = "etna.db";
  size_t watch_queue_capacity = 10000;
  Revision keep_revisions = 100000;
  std::chrono::minutes keep_duration{0};          // 0: by revision count only
  std::chrono::seconds compaction_interval{300};  // 0: on demand only
  int busy_timeout_ms = 5000;
  size_t read_connections = 4;  // the most reads in flight at once; more wait for a connection
  int64_t max_page_count = 0;   // 0: SQLite's default; tests use it to simulate a full disk
  bool check_integrity = true;  // PRAGMA quick_check on open
  // Made on open when missing; label indexes no longer listed here are dropped.
  std::vector<SqliteLabelIndex> label_indexes;
  // Test hook: called by the committer with the batch size before each transaction.
  std::function<void(size_t)> before_commit;
  // Called by the committer after each successful commit: the writes it grouped, its time
  // (fsync included) and the revision it made current. For metrics; must not block.
  std::function<void(size_t writes, double seconds, Revision revision)> after_commit;
};

class SqliteStore : public Store {
 public:
  // Opens or creates the store and recovers its revisions. A corrupt file is an Internal error
  // naming the file; a data dir another process has open is Unavailable.
  static Result<std::unique_ptr<SqliteStore>> Open(SqliteStoreOptions options);
  ~SqliteStore() override;

  Result<Revision> Create(const std::string& key, const std::string& value) override;
  Result<Revision> Update(const std::string& key, const std::string& value,
                          Revision expected_revision) override;
  Result<DeleteResult> Delete(const std::string& key, Revision expected_revision) override;
  Result<std::vector<Revision>> Txn(const std::vector<TxnOp>& ops) override;
  Result<KeyValue> Get(const std::string& key) override;
  Result<ListResult> List(const std::string& prefix, size_t limit,
                          const std::string& continue_after_key, Revision at_revision) override;
  // In one read transaction, with views into SQLite's row buffers: nothing is copied, and every
  // object is read at the same revision.
  Result<Revision> Visit(const std::string& prefix, const std::string& continue_after_key,
                         Revision at_revision, const std::function<bool(const KeyValueRef&)>& visit,
                         size_t expected = 0) override;
  // Through a label index (options.label_indexes) when one covers a term of `only` and
  // `prefix`, and the read is at the latest revision; otherwise as Visit.
  Result<Revision> VisitLabeled(const std::string& prefix, const std::string& continue_after_key,
                                Revision at_revision, const std::vector<LabelEquals>& only,
                                const std::function<bool(const KeyValueRef&)>& visit,
                                size_t expected = 0) override;
  Result<std::shared_ptr<Watcher>> Watch(const std::string& prefix,
                                         Revision from_revision) override;
  Status Compact(Revision revision) override;
  Revision CurrentRevision() override;
  Revision CompactedRevision() override;

  // Compacts now according to the policy in the options.
  Status RunCompactionPolicy();

  struct Stats {
    uint64_t transactions = 0;  // committed SQLite write transactions
    uint64_t writes = 0;        // committed requests (a Txn counts once)
  };
  Stats stats() const { return {transactions_.load(), writes_.load()}; }
  size_t QueuedRequests();
  const std::string& path() const { return path_; }

 private:
  struct Request {
    std::vector<TxnOp> ops;   // a write
    Revision compact_to = 0;  // or a compaction, when ops is empty
    std::promise<Result<std::vector<PlannedWrite>>> done;
  };
  struct Statements;
  struct Reader;  // a read connection and its statements
  struct ReturnReader {
    SqliteStore* store;
    void operator()(Reader* reader) const;
  };
  using ReaderLease = std::unique_ptr<Reader, ReturnReader>;

  explicit SqliteStore(SqliteStoreOptions options);
  Status Init();
  Result<std::vector<PlannedWrite>> Submit(std::vector<TxnOp> ops, Revision compact_to);
  void CommitterLoop();
  void WakerLoop();
  void CompactorLoop();
  void CommitBatch(std::deque<Request*>& batch);
  Status ApplyBatch(std::deque<Request*>& batch,
                    std::vector<Result<std::vector<PlannedWrite>>>& out, std::vector<Event>& events,
                    Revision& last, Revision& compacted);
  Status ApplyWrite(const PlannedWrite& w, int64_t now_ms);
  // An idle read connection; a new one while fewer than options_.read_connections are open,
  // else the next one given back.
  Result<ReaderLease> TakeReader();
  Result<std::unique_ptr<Reader>> OpenReader();
  // Makes the label indexes of the options and drops those it no longer lists.
  Status SyncLabelIndexes();
  // Visit's rows: through label index `index` (when >= 0) for rows whose label is `value`.
  Result<Revision> VisitRows(const std::string& prefix, const std::string& continue_after_key,
                             Revision at_revision, int index, const std::string& value,
                             const std::function<bool(const KeyValueRef&)>& visit);
  // In `reader`'s open read transaction: the revision a read at `at_revision` (0: the latest)
  // sees, and whether that is the latest (Gone when compacted, InvalidArgument when ahead).
  Result<std::pair<Revision, bool>> ReadRevision(Reader& reader, Revision at_revision);

  const SqliteStoreOptions options_;
  const std::string path_;
  int lock_fd_ = -1;         // flock on <file>.lock: one process per data dir
  std::unique_ptr<Db> wdb_;  // committer thread only
  std::unique_ptr<Statements> ws_;

  std::mutex readers_mu_;
  std::condition_variable readers_cv_;
  std::vector<std::unique_ptr<Reader>> idle_readers_;
  size_t open_readers_ = 0;  // idle or lent

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::condition_variable stop_cv_;  // wakes the compactor on shutdown
  std::deque<Request*> queue_;
  bool stopping_ = false;

  // What the waker does for one committed batch, in commit order: wake the watchers that were
  // given its events, then answer its writers.
  struct Wakeup {
    std::vector<std::shared_ptr<WatchQueue>> watchers;
    std::deque<Request*> batch;
    std::vector<Result<std::vector<PlannedWrite>>> results;
  };
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  std::deque<Wakeup> wakeups_;
  bool waker_stopping_ = false;

  std::mutex publish_mu_;   // orders publishing against watch registration
  Revision committed_ = 0;  // committer thread only: last committed revision
  std::atomic<Revision> published_{0};
  std::atomic<Revision> compacted_{0};
  WatchHub hub_;

  std::atomic<uint64_t> transactions_{0};
  std::atomic<uint64_t> writes_{0};
  std::thread committer_;
  std::thread waker_;
  std::thread compactor_;
};

}  // namespace etna::store
