#include "store/etcd/etcd_store.h"

#include <fmt/format.h>

#include <map>

#include "store/keys.h"
#include "store/write_plan.h"

namespace etna::store {
namespace {

using etcdserverpb::Compare;
using etcdserverpb::RangeRequest;
using etcdserverpb::RequestOp;
using etcdserverpb::TxnRequest;
using etcdserverpb::TxnResponse;

constexpr int64_t kListPage = 10000;   // a list without a limit reads etcd in pages this big
constexpr int kTxnAttempts = 8;        // a multi-op txn re-reads and retries after a race
constexpr Revision kStartBack = 1000;  // revisions the shared watch replays when a server starts
constexpr char kCompactRevKey[] = "compact_rev_key";  // kube-apiserver's, shared by design

KeyValue FromEtcd(const etcdserverpb::KeyValue& kv, size_t prefix_size) {
  return KeyValue{kv.key().substr(prefix_size), kv.value(), kv.create_revision(),
                  kv.mod_revision()};
}

void AddRange(google::protobuf::RepeatedPtrField<RequestOp>* ops, const std::string& key) {
  ops->Add()->mutable_request_range()->set_key(key);
}

}  // namespace

EtcdStore::EtcdStore(EtcdStoreOptions options)
    : options_(std::move(options)),
      prefix_([&] {
        std::string p = options_.prefix;
        while (!p.empty() && p.back() == '/') p.pop_back();
        return p;
      }()),
      hub_(options_.watch_queue_capacity) {}

Result<std::unique_ptr<EtcdStore>> EtcdStore::Open(EtcdStoreOptions options) {
  if (options.prefix.empty() || options.prefix[0] != '/') {
    return Status::InvalidArgument(
        fmt::format("--etcd-prefix \"{}\": must start with '/'", options.prefix));
  }
  std::unique_ptr<EtcdStore> store(new EtcdStore(std::move(options)));
  ETNA_ASSIGN_OR_RETURN(store->client_, EtcdClient::Connect(store->options_.client));
  // The last compaction any server made, so a watch before it is Gone from the start.
  RangeRequest compacted;
  compacted.set_key(kCompactRevKey);
  ETNA_ASSIGN_OR_RETURN(etcdserverpb::RangeResponse got, store->client_->Range(compacted));
  if (got.kvs_size() == 1) {
    store->compact_time_ = got.kvs(0).version();
    store->compacted_ = std::atoll(got.kvs(0).value().c_str());
  }
  // The shared watch starts a little way back (kStartBack revisions), so that a client resuming
  // a watch it had on another server finds recent events here too; older ones are read from
  // etcd's history on demand (WatchFromHistory). Not further: until the replay is done every
  // write of this server waits for its event behind it.
  const Revision now = got.header().revision();
  const Revision back = std::min<Revision>(kStartBack, store->options_.history_events);
  store->window_start_ = store->delivered_ =
      std::max<Revision>({0, now - back, store->compacted_.load()});
  store->follower_ = std::thread([s = store.get()] { s->FollowLoop(); });
  if (store->options_.compaction_interval.count() > 0) {
    store->compactor_ = std::thread([s = store.get()] { s->CompactorLoop(); });
  }
  return store;
}

EtcdStore::~EtcdStore() {
  stop_ = true;
  {
    std::lock_guard lock(stream_mu_);
    if (stream_) stream_->context->TryCancel();
  }
  compactor_cv_.notify_all();
  {
    std::lock_guard lock(publish_mu_);
    delivered_waiters_.WakeAll();
  }
  if (follower_.joinable()) follower_.join();
  if (compactor_.joinable()) compactor_.join();
  hub_.CloseAll(Status::Unavailable("store closed"));
}

TxnRequest EtcdStore::GuardedTxn(const TxnOp& op) const {
  const std::string key = EtcdKey(op.key);
  TxnRequest txn;
  Compare* cmp = txn.add_compare();
  cmp->set_key(key);
  if (op.kind == TxnOp::Kind::kCreate) {  // absent: no create revision
    cmp->set_target(Compare::CREATE);
    cmp->set_result(Compare::EQUAL);
    cmp->set_create_revision(0);
  } else if (op.expected_revision != 0) {  // unchanged since the caller read it
    cmp->set_target(Compare::MOD);
    cmp->set_result(Compare::EQUAL);
    cmp->set_mod_revision(op.expected_revision);
  } else {  // present
    cmp->set_target(Compare::VERSION);
    cmp->set_result(Compare::GREATER);
    cmp->set_version(0);
  }
  RequestOp* write = txn.add_success();
  if (op.kind == TxnOp::Kind::kDelete) {
    write->mutable_request_delete_range()->set_key(key);
    write->mutable_request_delete_range()->set_prev_kv(true);
  } else {
    write->mutable_request_put()->set_key(key);
    write->mutable_request_put()->set_value(op.value);
  }
  AddRange(txn.mutable_failure(), key);
  return txn;
}

Result<EtcdStore::WriteOutcome> EtcdStore::GuardedWrite(const TxnOp& op) {
  ETNA_RETURN_IF_ERROR(ValidateKey(op.key));
  const TxnRequest txn = GuardedTxn(op);
  for (int attempt = 1;; ++attempt) {
    bool outcome_unknown = false;
    auto r = client_->Txn(txn, RetrySafety::kOnlyIfUnsent, &outcome_unknown);
    if (!r.ok()) {
      if (!outcome_unknown || attempt >= kTxnAttempts) return r.status();
      // The member went away with the request: read what happened on another one.
      auto applied = WasApplied(op);
      if (!applied.ok()) return r.status();
      if (!*applied) continue;  // it was not applied: send it again
      AwaitDelivered((*applied)->revision);
      return **applied;
    }
    if (r->succeeded()) {
      AwaitDelivered(r->header().revision());
      WriteOutcome out{r->header().revision(), {}};
      if (op.kind == TxnOp::Kind::kDelete) {
        const auto& deleted = r->responses(0).response_delete_range();
        if (deleted.prev_kvs_size() != 1) {
          return Status::Internal(fmt::format("etcd deleted {} without returning it", op.key));
        }
        out.deleted = FromEtcd(deleted.prev_kvs(0), prefix_.size());
      }
      return out;
    }
    // Plan the op against the state the failure branch read, for the shared error.
    std::optional<KeyValue> current;
    const auto& read = r->responses(0).response_range();
    if (read.kvs_size() > 0) current = FromEtcd(read.kvs(0), prefix_.size());
    auto planned =
        PlanWrites({op}, r->header().revision() + 1,
                   [&](const std::string&) -> Result<std::optional<KeyValue>> { return current; });
    if (!planned.ok()) return planned.status();
    return Status::Internal(
        fmt::format("etcd refused a write to {} that its state allows", op.key));
  }
}

// A write whose member went away is judged by what the key holds now: a create or update whose
// value is there was applied (object values carry a uid and timestamps, so another writer's
// identical bytes do not happen); a key still in its old state was not. A delete of a key now
// gone, made with an expected revision, was applied and deleted the value of that revision.
Result<std::optional<EtcdStore::WriteOutcome>> EtcdStore::WasApplied(const TxnOp& op) {
  RangeRequest request;
  request.set_key(EtcdKey(op.key));
  ETNA_ASSIGN_OR_RETURN(etcdserverpb::RangeResponse now, client_->Range(request));
  std::optional<KeyValue> current;
  if (now.kvs_size() > 0) current = FromEtcd(now.kvs(0), prefix_.size());
  if (op.kind != TxnOp::Kind::kDelete) {
    const bool ours =
        current && current->value == op.value &&
        (op.kind == TxnOp::Kind::kCreate || current->mod_revision != op.expected_revision);
    if (ours) return std::optional<WriteOutcome>(WriteOutcome{current->mod_revision, {}});
    return std::optional<WriteOutcome>();
  }
  if (current) return std::optional<WriteOutcome>();
  if (op.expected_revision == 0) return Status::Unavailable("cannot tell who deleted the key");
  RangeRequest before;
  before.set_key(EtcdKey(op.key));
  before.set_revision(op.expected_revision);
  ETNA_ASSIGN_OR_RETURN(etcdserverpb::RangeResponse old, client_->Range(before));
  if (old.kvs_size() == 0) return Status::Unavailable("the deleted value is not readable");
  return std::optional<WriteOutcome>(
      WriteOutcome{now.header().revision(), FromEtcd(old.kvs(0), prefix_.size())});
}

Result<Revision> EtcdStore::Create(const std::string& key, const std::string& value) {
  ETNA_ASSIGN_OR_RETURN(WriteOutcome w, GuardedWrite(TxnOp::Create(key, value)));
  return w.revision;
}

Result<Revision> EtcdStore::Update(const std::string& key, const std::string& value,
                                   Revision expected_revision) {
  ETNA_ASSIGN_OR_RETURN(WriteOutcome w, GuardedWrite(TxnOp::Update(key, value, expected_revision)));
  return w.revision;
}

Result<DeleteResult> EtcdStore::Delete(const std::string& key, Revision expected_revision) {
  ETNA_ASSIGN_OR_RETURN(WriteOutcome w, GuardedWrite(TxnOp::Delete(key, expected_revision)));
  return DeleteResult{w.revision, std::move(w.deleted)};
}

Result<std::vector<Revision>> EtcdStore::Txn(const std::vector<TxnOp>& ops) {
  if (ops.size() == 1) {
    ETNA_ASSIGN_OR_RETURN(WriteOutcome w, GuardedWrite(ops[0]));
    return std::vector<Revision>{w.revision};
  }
  return MultiOpTxn(ops);
}

// Reads every key the ops touch at one revision, plans the ops on that state (the shared
// semantics: later ops see earlier ones), and writes each key's final state in one etcd
// transaction guarded by every key's mod revision; a race with another writer starts over.
LostTxnOutcome JudgeLostTxn(const std::map<std::string, std::optional<KeyValue>>& before,
                            const std::map<std::string, std::optional<std::string>>& planned,
                            const std::map<std::string, std::optional<KeyValue>>& now) {
  auto state = [](const std::map<std::string, std::optional<KeyValue>>& m, const std::string& k) {
    auto it = m.find(k);
    return it == m.end() ? std::optional<KeyValue>() : it->second;
  };
  bool unchanged = true;
  bool applied = true;
  Revision revision = 0;
  bool puts = false;
  for (const auto& [key, value] : planned) {
    const std::optional<KeyValue> was = state(before, key);
    const std::optional<KeyValue> is = state(now, key);
    unchanged = unchanged && was.has_value() == is.has_value() &&
                (!was || was->mod_revision == is->mod_revision);
    if (!value) {
      applied = applied && !is;
      continue;
    }
    puts = true;
    const bool ours = is && is->value == *value && (!was || is->mod_revision > was->mod_revision) &&
                      (revision == 0 || is->mod_revision == revision);
    if (ours) revision = is->mod_revision;
    applied = applied && ours;
  }
  if (unchanged) return {LostTxnVerdict::kNotApplied, 0};
  if (applied && puts) return {LostTxnVerdict::kApplied, revision};
  return {LostTxnVerdict::kUnknown, 0};
}

Result<std::map<std::string, std::optional<KeyValue>>> EtcdStore::ReadKeys(
    const std::vector<std::string>& keys, Revision* revision) {
  TxnRequest read;
  for (const std::string& key : keys) AddRange(read.mutable_success(), EtcdKey(key));
  ETNA_ASSIGN_OR_RETURN(TxnResponse snapshot, client_->Txn(read, RetrySafety::kIdempotent));
  std::map<std::string, std::optional<KeyValue>> state;
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto& range = snapshot.responses(static_cast<int>(i)).response_range();
    state[keys[i]] = range.kvs_size() > 0
                         ? std::optional<KeyValue>(FromEtcd(range.kvs(0), prefix_.size()))
                         : std::nullopt;
  }
  if (revision) *revision = snapshot.header().revision();
  return state;
}

// Reads every key the ops touch at one revision, plans the ops on that state (the shared
// semantics: later ops see earlier ones), and writes each key's final state in one etcd
// transaction guarded by every key's mod revision; a race with another writer starts over.
Result<std::vector<Revision>> EtcdStore::MultiOpTxn(const std::vector<TxnOp>& ops) {
  std::vector<std::string> keys;
  for (const TxnOp& op : ops) {
    if (ValidateKey(op.key).ok() && std::find(keys.begin(), keys.end(), op.key) == keys.end()) {
      keys.push_back(op.key);
    }
  }
  for (int attempt = 0; attempt < kTxnAttempts; ++attempt) {
    Revision read_revision = 0;
    ETNA_ASSIGN_OR_RETURN(auto state, ReadKeys(keys, &read_revision));
    ETNA_ASSIGN_OR_RETURN(
        std::vector<PlannedWrite> plan,
        PlanWrites(
            ops, read_revision + 1,
            [&](const std::string& key) -> Result<std::optional<KeyValue>> { return state[key]; }));
    std::map<std::string, const Event*> final_state;  // each key's last planned event
    for (const PlannedWrite& w : plan) final_state[w.event.key] = &w.event;
    TxnRequest write;
    std::map<std::string, std::optional<std::string>> planned;
    for (const auto& [key, event] : final_state) {
      Compare* cmp = write.add_compare();
      cmp->set_key(EtcdKey(key));
      cmp->set_target(Compare::MOD);
      cmp->set_result(Compare::EQUAL);
      cmp->set_mod_revision(state[key] ? state[key]->mod_revision : 0);
      if (event->type != EventType::kDeleted) {
        auto* put = write.add_success()->mutable_request_put();
        put->set_key(EtcdKey(key));
        put->set_value(event->value);
        planned[key] = event->value;
      } else if (state[key]) {  // deleting what exists; a key made and removed here is no write
        write.add_success()->mutable_request_delete_range()->set_key(EtcdKey(key));
        planned[key] = std::nullopt;
      }
    }
    bool outcome_unknown = false;
    auto r = client_->Txn(write, RetrySafety::kOnlyIfUnsent, &outcome_unknown);
    if (!r.ok()) {
      if (!outcome_unknown) return r.status();
      // The member went away with the request: judge it by what the keys hold on another one.
      std::vector<std::string> written;
      for (const auto& [key, value] : planned) written.push_back(key);
      auto now = ReadKeys(written, nullptr);
      if (!now.ok()) return r.status();
      LostTxnOutcome judged = JudgeLostTxn(state, planned, *now);
      if (judged.verdict == LostTxnVerdict::kNotApplied) continue;
      if (judged.verdict == LostTxnVerdict::kUnknown) return r.status();
      AwaitDelivered(judged.revision);
      return std::vector<Revision>(ops.size(), judged.revision);
    }
    if (r->succeeded()) {
      AwaitDelivered(r->header().revision());
      return std::vector<Revision>(ops.size(), r->header().revision());
    }
  }
  return Status::Conflict(fmt::format("transaction on {} keys lost {} races with other writers",
                                      keys.size(), kTxnAttempts));
}

Result<KeyValue> EtcdStore::Get(const std::string& key) {
  ETNA_RETURN_IF_ERROR(ValidateKey(key));
  RangeRequest request;
  request.set_key(EtcdKey(key));
  ETNA_ASSIGN_OR_RETURN(etcdserverpb::RangeResponse r, client_->Range(request));
  if (r.kvs_size() == 0) return Status::NotFound(fmt::format("{} not found", key));
  return FromEtcd(r.kvs(0), prefix_.size());
}

Result<ListResult> EtcdStore::List(const std::string& prefix, size_t limit,
                                   const std::string& continue_after_key, Revision at_revision) {
  ETNA_RETURN_IF_ERROR(ValidateKey(prefix));
  ListResult out;
  out.revision = at_revision;
  std::string start = ListStart(prefix, continue_after_key);
  const std::string end = PrefixEnd(prefix);
  while (true) {
    RangeRequest request;
    request.set_key(EtcdKey(start));
    request.set_range_end(end.empty() ? PrefixEnd(prefix_) : EtcdKey(end));
    const size_t want = limit == 0 ? kListPage : limit - out.items.size();
    request.set_limit(static_cast<int64_t>(std::min<size_t>(want, kListPage)));
    request.set_revision(out.revision);
    auto r = client_->Range(request);
    if (!r.ok()) {
      if (r.status().code() == StatusCode::kGone) NoteCompacted(out.revision);
      return r.status();
    }
    if (out.revision == 0) out.revision = r->header().revision();
    for (const auto& kv : r->kvs()) out.items.push_back(FromEtcd(kv, prefix_.size()));
    if (!r->more()) return out;
    if (limit != 0 && out.items.size() >= limit) {
      out.continue_key = out.items.back().key;
      return out;
    }
    start = out.items.back().key + std::string(1, '\0');
  }
}

Status EtcdStore::Compact(Revision revision) {
  if (revision <= compacted_) return Status::Ok();
  Status st = client_->Compact(revision);
  if (st.code() == StatusCode::kGone) st = Status::Ok();  // another server compacted further
  if (st.ok()) NoteCompacted(revision);
  return st;
}

Revision EtcdStore::CompactedRevision() { return compacted_; }

void EtcdStore::NoteCompacted(Revision revision) {
  Revision seen = compacted_.load();
  while (revision > seen && !compacted_.compare_exchange_weak(seen, revision)) {
  }
}

// kube-apiserver's policy: the server whose compare-and-swap on compact_rev_key's version wins
// compacts to the revision it recorded one interval earlier; the others only learn the version.
Status EtcdStore::RunCompactionPolicy() {
  TxnRequest txn;
  Compare* cmp = txn.add_compare();
  cmp->set_key(kCompactRevKey);
  cmp->set_target(Compare::VERSION);
  cmp->set_result(Compare::EQUAL);
  std::lock_guard lock(compactor_mu_);
  cmp->set_version(compact_time_);
  auto* put = txn.add_success()->mutable_request_put();
  put->set_key(kCompactRevKey);
  put->set_value(std::to_string(compact_next_));
  AddRange(txn.mutable_failure(), kCompactRevKey);
  ETNA_ASSIGN_OR_RETURN(TxnResponse r, client_->Txn(txn, RetrySafety::kOnlyIfUnsent));
  const Revision target = compact_next_;
  compact_next_ = r.header().revision();
  if (!r.succeeded()) {
    const auto& range = r.responses(0).response_range();
    compact_time_ = range.kvs_size() > 0 ? range.kvs(0).version() : 0;
    return Status::Ok();
  }
  ++compact_time_;
  return target > 0 ? Compact(target) : Status::Ok();
}

void EtcdStore::CompactorLoop() {
  std::unique_lock lock(compactor_mu_);
  while (
      !compactor_cv_.wait_for(lock, options_.compaction_interval, [&] { return stop_.load(); })) {
    lock.unlock();
    Status st = RunCompactionPolicy();
    if (!st.ok()) fmt::print(stderr, "etcd compaction: {}\n", st.ToString());
    lock.lock();
  }
}

}  // namespace etna::store
