// The revisioned object store the API server keeps every object in.
//
// One revision counter, increasing by one per write, is every object's `resourceVersion`. Values
// are opaque byte strings (the API layer stores JSON). Keys follow the scheme in keys.h:
//   namespaced:      /<resource>/<namespace>/<name>   e.g. /pods/default/job1-0
//   cluster-scoped:  /<resource>/<name>               e.g. /nodes/gpu-01
// so a list of one resource in one namespace is a list of the prefix "/pods/default/".
//
// Errors (Status codes): AlreadyExists (create of a present key), NotFound, Conflict (stale
// expected revision), Gone (a revision that was compacted: list continue, list at revision,
// watch), InvalidArgument (bad key, future revision), ResourceExhausted (disk full, a watcher
// that fell behind), Unavailable (store closed or busy), Internal (I/O, corrupt file).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace etna::store {

using Revision = int64_t;

// One stored object as of some revision.
struct KeyValue {
  std::string key;
  std::string value;
  Revision create_revision = 0;  // the revision that created this incarnation of the key
  Revision mod_revision = 0;     // the revision of the last write: the resourceVersion
};

enum class EventType { kAdded, kModified, kDeleted };
const char* EventTypeName(EventType type);  // "ADDED", "MODIFIED", "DELETED"

// One change as a watcher sees it. For kDeleted, `value` is the last value before the delete.
struct Event {
  EventType type = EventType::kAdded;
  std::string key;
  std::string value;
  Revision revision = 0;
  Revision create_revision = 0;
};

struct DeleteResult {
  Revision revision = 0;  // the revision of the delete
  KeyValue deleted;       // the object as it was just before the delete
};

// One object as Store::Visit hands it over: views valid only during the call.
struct KeyValueRef {
  std::string_view key;
  std::string_view value;
  Revision mod_revision = 0;
  Revision create_revision = 0;
};

// A label selector's equality term: objects whose metadata.labels[label] is `value`.
struct LabelEquals {
  std::string label;
  std::string value;
};

struct ListResult {
  std::vector<KeyValue> items;  // in key order
  Revision revision = 0;        // the snapshot the page was read at; pass it back to continue
  std::string continue_key;     // empty when this was the last page
};

// One write in a Txn. expected_revision 0 means unconditional (Update, Delete).
struct TxnOp {
  enum class Kind { kCreate, kUpdate, kDelete };
  Kind kind = Kind::kCreate;
  std::string key;
  std::string value;
  Revision expected_revision = 0;
  static TxnOp Create(std::string k, std::string v) {
    return {Kind::kCreate, std::move(k), std::move(v), 0};
  }
  static TxnOp Update(std::string k, std::string v, Revision expected = 0) {
    return {Kind::kUpdate, std::move(k), std::move(v), expected};
  }
  static TxnOp Delete(std::string k, Revision expected = 0) {
    return {Kind::kDelete, std::move(k), {}, expected};
  }
};

// A stream of events under one prefix, in revision order, with no gaps. Closed with an error when
// it falls more than its queue capacity behind (ResourceExhausted: re-list and re-watch), when the
// store closes (Unavailable) or when Cancel() is called (Unavailable).
//
// Thread-safety: all methods are safe to call from any thread. Two forms of consumption:
//   * blocking: Next(timeout) from a consumer thread;
//   * callback: SetNotify(fn); the store calls fn after events were queued or the watcher closed,
//     on the writing thread with store locks held, so fn must be cheap, must not block and must
//     not call into the store or this watcher (post to an executor instead); the
//     consumer then drains with Next(0ms) until it returns nullopt.
class Watcher {
 public:
  virtual ~Watcher() = default;
  // The next event, nullopt when none arrived within `timeout`, or the close status once the
  // queue is drained (events queued before an overflow are dropped: the client re-lists anyway).
  virtual Result<std::optional<Event>> Next(std::chrono::milliseconds timeout) = 0;
  virtual void SetNotify(std::function<void()> fn) = 0;
  // Later events for which `keep` is false are dropped unqueued and wake no one (a watch whose
  // selector cannot match them); they still count as seen. Queued events stay.
  virtual void SetFilter(std::function<bool(const Event&)> keep) = 0;
  virtual void Cancel() = 0;
};

// The store interface. Thread-safety: every method may be called concurrently from any thread.
// A returned revision means the write is durable (for SqliteStore: fsynced to disk).
class Store {
 public:
  virtual ~Store() = default;

  // Creates `key`; AlreadyExists when present. Returns the new revision.
  virtual Result<Revision> Create(const std::string& key, const std::string& value) = 0;
  // Replaces `key`'s value; NotFound when absent, Conflict when expected_revision != 0 and differs
  // from the key's mod_revision. Returns the new revision.
  virtual Result<Revision> Update(const std::string& key, const std::string& value,
                                  Revision expected_revision) = 0;
  // Deletes `key` (NotFound, Conflict as Update). Returns the delete's revision and the old object.
  virtual Result<DeleteResult> Delete(const std::string& key, Revision expected_revision) = 0;
  // Applies all ops in one revision range atomically: either every op's precondition holds and all
  // are written (their revisions returned in op order: one each on SQLite and in memory, the
  // transaction's one shared revision on etcd), or nothing is written and the first failing
  // op's status is returned with its index as context.
  virtual Result<std::vector<Revision>> Txn(const std::vector<TxnOp>& ops) = 0;

  virtual Result<KeyValue> Get(const std::string& key) = 0;
  // Lists keys starting with `prefix` after `continue_after_key` (exclusive; empty = from the
  // start), at most `limit` items (0 = all), as of `at_revision` (0 = latest). A continued list
  // passes the first page's revision as at_revision; Gone when it was compacted since.
  virtual Result<ListResult> List(const std::string& prefix, size_t limit,
                                  const std::string& continue_after_key, Revision at_revision) = 0;
  // Hands `visit`, in key order, the objects List(prefix, 0, continue_after_key, at_revision)
  // would return, without copying them, until it returns false; returns the revision read at.
  // The default reads List's pages, the first of `expected` + 1 objects when the caller
  // expects to stop after `expected` (0: unknown), so a list with a small limit does not read a
  // thousand objects; CachedStore visits its memory under its read lock, so `visit` must not
  // call the store.
  virtual Result<Revision> Visit(const std::string& prefix, const std::string& continue_after_key,
                                 Revision at_revision,
                                 const std::function<bool(const KeyValueRef&)>& visit,
                                 size_t expected = 0);
  // Visit for a caller that keeps only objects matching every term of `only`: a store that
  // indexes one of those labels under `prefix` hands over only the objects with its value (in
  // key order, at one revision); the default hands over what Visit does. The caller filters
  // either way.
  virtual Result<Revision> VisitLabeled(const std::string& prefix,
                                        const std::string& continue_after_key, Revision at_revision,
                                        const std::vector<LabelEquals>& only,
                                        const std::function<bool(const KeyValueRef&)>& visit,
                                        size_t expected = 0);
  // Watches keys under `prefix` for every event with revision > from_revision: first the retained
  // history, then live events. Gone when from_revision < CompactedRevision().
  virtual Result<std::shared_ptr<Watcher>> Watch(const std::string& prefix,
                                                 Revision from_revision) = 0;

  // Discards history at or below `revision` (the state as of `revision` stays readable).
  virtual Status Compact(Revision revision) = 0;
  virtual Revision CurrentRevision() = 0;
  virtual Revision CompactedRevision() = 0;
};

}  // namespace etna::store
