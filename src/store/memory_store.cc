#include "store/memory_store.h"

#include <fmt/format.h>

#include <unordered_map>

#include "store/keys.h"

namespace etna::store {

MemoryStore::MemoryStore(size_t watch_queue_capacity) : hub_(watch_queue_capacity) {}

MemoryStore::~MemoryStore() { hub_.CloseAll(Status::Unavailable("store closed")); }

Result<std::vector<PlannedWrite>> MemoryStore::Write(const std::vector<TxnOp>& ops) {
  std::lock_guard lock(mu_);
  auto lookup = [&](const std::string& key) -> Result<std::optional<KeyValue>> {
    auto it = latest_.find(key);
    if (it == latest_.end()) return std::optional<KeyValue>();
    return std::optional<KeyValue>(it->second);
  };
  ETNA_ASSIGN_OR_RETURN(auto planned, PlanWrites(ops, revision_ + 1, lookup));
  std::vector<Event> events;
  for (const PlannedWrite& w : planned) {
    const Event& e = w.event;
    if (e.type == EventType::kDeleted) {
      latest_.erase(e.key);
    } else {
      latest_[e.key] = KeyValue{e.key, e.value, e.create_revision, e.revision};
    }
    log_.push_back(e);
    events.push_back(e);
    revision_ = e.revision;
  }
  hub_.Publish(events);
  return planned;
}

Result<Revision> MemoryStore::Create(const std::string& key, const std::string& value) {
  ETNA_ASSIGN_OR_RETURN(auto w, Write({TxnOp::Create(key, value)}));
  return w[0].event.revision;
}

Result<Revision> MemoryStore::Update(const std::string& key, const std::string& value,
                                     Revision expected_revision) {
  ETNA_ASSIGN_OR_RETURN(auto w, Write({TxnOp::Update(key, value, expected_revision)}));
  return w[0].event.revision;
}

Result<DeleteResult> MemoryStore::Delete(const std::string& key, Revision expected_revision) {
  ETNA_ASSIGN_OR_RETURN(auto w, Write({TxnOp::Delete(key, expected_revision)}));
  return DeleteResult{w[0].event.revision, *w[0].prev};
}

Result<std::vector<Revision>> MemoryStore::Txn(const std::vector<TxnOp>& ops) {
  ETNA_ASSIGN_OR_RETURN(auto w, Write(ops));
  std::vector<Revision> revs;
  for (const PlannedWrite& p : w) revs.push_back(p.event.revision);
  return revs;
}

Result<KeyValue> MemoryStore::Get(const std::string& key) {
  ETNA_RETURN_IF_ERROR(ValidateKey(key));
  std::lock_guard lock(mu_);
  auto it = latest_.find(key);
  if (it == latest_.end()) return Status::NotFound(fmt::format("{} not found", key));
  return it->second;
}

Result<ListResult> MemoryStore::List(const std::string& prefix, size_t limit,
                                     const std::string& continue_after_key, Revision at_revision) {
  std::lock_guard lock(mu_);
  ListResult out;
  out.revision = at_revision == 0 ? revision_ : at_revision;
  if (out.revision < compacted_) {
    return Status::Gone(
        fmt::format("revision {} was compacted (oldest kept: {})", out.revision, compacted_));
  }
  if (out.revision > revision_) {
    return Status::InvalidArgument(
        fmt::format("revision {} is in the future (current {})", out.revision, revision_));
  }
  const std::string start = ListStart(prefix, continue_after_key);
  std::map<std::string, KeyValue> at_rev;  // the state as of out.revision, when not the latest
  const std::map<std::string, KeyValue>* state = &latest_;
  if (out.revision != revision_) {
    for (const Event& e : log_) {
      if (e.revision > out.revision) break;
      if (e.key < start || !HasPrefix(e.key, prefix)) continue;
      if (e.type == EventType::kDeleted) {
        at_rev.erase(e.key);
      } else {
        at_rev[e.key] = KeyValue{e.key, e.value, e.create_revision, e.revision};
      }
    }
    state = &at_rev;
  }
  for (auto it = state->lower_bound(start); it != state->end() && HasPrefix(it->first, prefix);
       ++it) {
    if (limit != 0 && out.items.size() == limit) {
      out.continue_key = out.items.back().key;
      break;
    }
    out.items.push_back(it->second);
  }
  return out;
}

Result<std::shared_ptr<Watcher>> MemoryStore::Watch(const std::string& prefix,
                                                    Revision from_revision) {
  std::lock_guard lock(mu_);
  if (from_revision < compacted_) {
    return Status::Gone(
        fmt::format("too old resource version: {} ({})", from_revision, compacted_));
  }
  std::vector<Event> history;
  for (const Event& e : log_) {
    if (e.revision > from_revision && HasPrefix(e.key, prefix)) history.push_back(e);
  }
  return std::shared_ptr<Watcher>(hub_.Register(prefix, from_revision, history));
}

Status MemoryStore::Compact(Revision revision) {
  std::lock_guard lock(mu_);
  if (revision > revision_) {
    return Status::InvalidArgument(
        fmt::format("cannot compact to revision {}: current is {}", revision, revision_));
  }
  if (revision <= compacted_) return Status::Ok();
  // Keep each key's last entry at or below `revision` unless it is a delete, and all later ones.
  std::unordered_map<std::string, Revision> last;
  for (const Event& e : log_) {
    if (e.revision > revision) break;
    last[e.key] = e.revision;
  }
  std::erase_if(log_, [&](const Event& e) {
    return e.revision <= revision && (e.type == EventType::kDeleted || last[e.key] != e.revision);
  });
  compacted_ = revision;
  return Status::Ok();
}

Revision MemoryStore::CurrentRevision() {
  std::lock_guard lock(mu_);
  return revision_;
}

Revision MemoryStore::CompactedRevision() {
  std::lock_guard lock(mu_);
  return compacted_;
}

}  // namespace etna::store
