// MemoryStore: the Store interface kept in process memory, for unit tests of the layers above.
// Same semantics as SqliteStore (shared write planning, watch hub and compaction rule) but no
// durability. Thread-safety: thread-safe; one mutex serialises every operation.
#pragma once

#include <map>
#include <mutex>
#include <vector>

#include "store/store.h"
#include "store/watch_hub.h"
#include "store/write_plan.h"

namespace etna::store {

class MemoryStore : public Store {
 public:
  explicit MemoryStore(size_t watch_queue_capacity = 10000);
  ~MemoryStore() override;

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
  Revision CurrentRevision() override;
  Revision CompactedRevision() override;

 private:
  Result<std::vector<PlannedWrite>> Write(const std::vector<TxnOp>& ops);

  std::mutex mu_;
  Revision revision_ = 0;
  Revision compacted_ = 0;
  std::map<std::string, KeyValue> latest_;
  std::vector<Event> log_;  // revision order; compaction keeps each key's state at compacted_
  WatchHub hub_;
};

}  // namespace etna::store
