// The write semantics both backends share: checks each op's precondition against the current
// state and turns the ops into the events to record. Backends only look keys up and apply the
// planned events, so Create/Update/Delete/Txn behave the same on SQLite and in memory.
// Pure functions; thread-safety is the caller's (they run under the backend's write lock).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "store/store.h"

namespace etna::store {

// One planned write: the event to record and the object it replaces (absent for a create).
struct PlannedWrite {
  Event event;
  std::optional<KeyValue> prev;
};

// Reads the latest committed state of a key (nullopt when absent).
using LookupFn = std::function<Result<std::optional<KeyValue>>(const std::string& key)>;

// Plans `ops` in order, the i-th getting revision next_revision + i. Later ops see earlier ones.
// On the first failing precondition nothing is planned and its status is returned (with "op <i>"
// context when there is more than one op).
Result<std::vector<PlannedWrite>> PlanWrites(const std::vector<TxnOp>& ops, Revision next_revision,
                                             const LookupFn& lookup);

}  // namespace etna::store
