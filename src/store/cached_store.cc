#include "store/cached_store.h"

#include <fmt/format.h>

#include <cstdio>

#include "store/keys.h"

namespace etna::store {
namespace {

// How long the applier blocks for events before it checks for a stop.
constexpr std::chrono::milliseconds kApplierPoll{100};

}  // namespace

Result<std::unique_ptr<CachedStore>> CachedStore::Open(Store* backing, std::unique_ptr<Store> owned,
                                                       CachedStoreOptions options) {
  std::unique_ptr<CachedStore> cache(new CachedStore(backing, std::move(owned), options));
  ETNA_RETURN_IF_ERROR(cache->Build());
  cache->applier_ = std::thread([c = cache.get()] { c->ApplierLoop(); });
  return cache;
}

CachedStore::CachedStore(Store* backing, std::unique_ptr<Store> owned, CachedStoreOptions options)
    : backing_(backing), owned_(std::move(owned)), options_(options) {}

CachedStore::~CachedStore() {
  stop_ = true;
  {
    std::lock_guard lock(watcher_mu_);
    if (watcher_) watcher_->Cancel();
  }
  {
    std::lock_guard lock(applied_mu_);
    applied_waiters_.WakeAll();
  }
  if (applier_.joinable()) applier_.join();
  watcher_.reset();
  owned_.reset();
}

Status CachedStore::Build() {
  serving_ = false;
  ETNA_ASSIGN_OR_RETURN(ListResult all, backing_->List("/", 0, "", 0));
  ETNA_ASSIGN_OR_RETURN(auto watcher, backing_->Watch("/", all.revision));
  {
    std::lock_guard lock(watcher_mu_);
    watcher_ = std::move(watcher);
    if (stop_) watcher_->Cancel();
  }
  std::unique_lock lock(entries_mu_);
  entries_.clear();
  for (KeyValue& kv : all.items) {
    entries_.emplace(std::move(kv.key),
                     Entry{std::move(kv.value), kv.create_revision, kv.mod_revision});
  }
  SetApplied(all.revision);
  serving_ = true;
  return Status::Ok();
}

void CachedStore::ApplierLoop() {
  std::vector<Event> batch;
  std::shared_ptr<Watcher> watcher;
  while (!stop_) {
    {
      std::lock_guard lock(watcher_mu_);
      watcher = watcher_;
    }
    auto next = watcher->Next(kApplierPoll);
    Status failed = next.ok() ? Status::Ok() : next.status();
    if (next.ok() && next->has_value()) {
      batch.push_back(std::move(**next));
      // Everything already queued joins the batch: one exclusive lock for all of it.
      while (true) {
        auto more = watcher->Next(std::chrono::milliseconds(0));
        if (!more.ok()) {
          failed = more.status();
          break;
        }
        if (!more->has_value()) break;
        batch.push_back(std::move(**more));
      }
    }
    if (!batch.empty()) Apply(batch);
    if (failed.ok() || stop_) continue;
    // The watch fell behind or closed: rebuild from a fresh list, reading beneath meanwhile.
    serving_ = false;
    ++rebuilds_;
    std::fprintf(stderr, "store cache: the watch failed (%s); rebuilding\n",
                 failed.ToString().c_str());
    while (!stop_) {
      Status built = Build();
      if (built.ok()) break;
      if (built.code() == StatusCode::kUnavailable) return;  // the store beneath closed
      std::this_thread::sleep_for(kApplierPoll);
    }
  }
}

void CachedStore::Apply(std::vector<Event>& events) {
  {
    std::unique_lock lock(entries_mu_);
    for (Event& e : events) {
      if (e.type == EventType::kDeleted) {
        entries_.erase(e.key);
      } else {
        Entry& entry = entries_[e.key];
        entry.value = std::move(e.value);
        entry.create_revision = e.create_revision;
        entry.mod_revision = e.revision;
      }
    }
    SetApplied(events.back().revision);
  }
  events.clear();
}

void CachedStore::SetApplied(Revision revision) {
  std::lock_guard lock(applied_mu_);
  applied_ = revision;
  applied_waiters_.Wake(revision);
}

bool CachedStore::CatchUp() {
  if (!serving_) return false;
  Revision target = std::max(backing_->CurrentRevision(), written_.load());
  if (applied_ >= target) return true;
  std::unique_lock lock(applied_mu_);
  return applied_waiters_.WaitFor(lock, target, options_.catch_up_timeout,
                                  [&] { return applied_ >= target || stop_; }) &&
         serving_ && applied_ >= target;
}

void CachedStore::NoteWritten(Revision revision) {
  Revision seen = written_.load();
  while (revision > seen && !written_.compare_exchange_weak(seen, revision)) {
  }
}

Result<Revision> CachedStore::Create(const std::string& key, const std::string& value) {
  auto r = backing_->Create(key, value);
  if (r.ok()) NoteWritten(*r);
  return r;
}

Result<Revision> CachedStore::Update(const std::string& key, const std::string& value,
                                     Revision expected_revision) {
  auto r = backing_->Update(key, value, expected_revision);
  if (r.ok()) NoteWritten(*r);
  return r;
}

Result<DeleteResult> CachedStore::Delete(const std::string& key, Revision expected_revision) {
  auto r = backing_->Delete(key, expected_revision);
  if (r.ok()) NoteWritten(r->revision);
  return r;
}

Result<std::vector<Revision>> CachedStore::Txn(const std::vector<TxnOp>& ops) {
  auto r = backing_->Txn(ops);
  if (r.ok() && !r->empty()) NoteWritten(r->back());
  return r;
}

Result<KeyValue> CachedStore::Get(const std::string& key) {
  ETNA_RETURN_IF_ERROR(ValidateKey(key));
  if (!CatchUp()) return backing_->Get(key);
  std::shared_lock lock(entries_mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return Status::NotFound(fmt::format("{} not found", key));
  const Entry& e = it->second;
  return KeyValue{key, e.value, e.create_revision, e.mod_revision};
}

std::optional<Revision> CachedStore::ScanCached(
    const std::string& prefix, const std::string& continue_after_key, Revision at_revision,
    const std::function<bool(const std::string&, const Entry&)>& fn) {
  if (!CatchUp()) return std::nullopt;
  std::shared_lock lock(entries_mu_);
  if (at_revision != 0 && at_revision != applied_) return std::nullopt;
  for (auto it = entries_.lower_bound(ListStart(prefix, continue_after_key));
       it != entries_.end() && HasPrefix(it->first, prefix); ++it) {
    if (!fn(it->first, it->second)) break;
  }
  return applied_.load();
}

Result<ListResult> CachedStore::List(const std::string& prefix, size_t limit,
                                     const std::string& continue_after_key, Revision at_revision) {
  ListResult out;
  auto revision = ScanCached(
      prefix, continue_after_key, at_revision, [&](const std::string& key, const Entry& e) {
        if (limit != 0 && out.items.size() == limit) {
          out.continue_key = out.items.back().key;
          return false;
        }
        out.items.push_back(KeyValue{key, e.value, e.create_revision, e.mod_revision});
        return true;
      });
  if (!revision) return backing_->List(prefix, limit, continue_after_key, at_revision);
  out.revision = *revision;
  return out;
}

Result<Revision> CachedStore::Visit(const std::string& prefix,
                                    const std::string& continue_after_key, Revision at_revision,
                                    const std::function<bool(const KeyValueRef&)>& visit,
                                    size_t expected) {
  auto revision = ScanCached(
      prefix, continue_after_key, at_revision, [&](const std::string& key, const Entry& e) {
        return visit(KeyValueRef{key, e.value, e.mod_revision, e.create_revision});
      });
  if (!revision) return backing_->Visit(prefix, continue_after_key, at_revision, visit, expected);
  return *revision;
}

Result<std::shared_ptr<Watcher>> CachedStore::Watch(const std::string& prefix,
                                                    Revision from_revision) {
  return backing_->Watch(prefix, from_revision);
}

Status CachedStore::Compact(Revision revision) { return backing_->Compact(revision); }

Revision CachedStore::CurrentRevision() { return backing_->CurrentRevision(); }

Revision CachedStore::CompactedRevision() { return backing_->CompactedRevision(); }

}  // namespace etna::store
