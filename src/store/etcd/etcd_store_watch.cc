// EtcdStore's watches: the one etcd watch every watcher of this process shares, the in-memory
// window of recent events, and watches that start before that window.
#include <fmt/format.h>

#include "store/etcd/etcd_store.h"
#include "store/keys.h"

namespace etna::store {
namespace {

using etcdserverpb::WatchRequest;
using etcdserverpb::WatchResponse;

constexpr std::chrono::milliseconds kProgressPoll{25};  // CurrentRevision asks this often

WatchRequest CreateRequest(const std::string& key, const std::string& end, Revision from) {
  WatchRequest request;
  auto* create = request.mutable_create_request();
  create->set_key(key);
  create->set_range_end(end);
  create->set_start_revision(from + 1);
  create->set_prev_kv(true);
  create->set_progress_notify(true);
  return request;
}

WatchRequest ProgressRequest() {
  WatchRequest request;
  request.mutable_progress_request();
  return request;
}

// A response that only says how far the stream has come.
bool IsProgress(const WatchResponse& r) {
  return r.events_size() == 0 && !r.created() && !r.canceled() && r.compact_revision() == 0;
}

}  // namespace

std::optional<Event> EtcdStore::ToEvent(const etcdserverpb::Event& e) const {
  const auto& kv = e.kv();
  if (kv.key().size() <= prefix_.size() || kv.key().compare(0, prefix_.size(), prefix_) != 0) {
    return std::nullopt;
  }
  Event out;
  out.key = kv.key().substr(prefix_.size());
  out.revision = kv.mod_revision();
  if (e.type() == etcdserverpb::Event::DELETE) {
    out.type = EventType::kDeleted;
    out.value = e.prev_kv().value();
    out.create_revision = e.prev_kv().create_revision();
  } else {
    out.type = kv.create_revision() == kv.mod_revision() ? EventType::kAdded : EventType::kModified;
    out.value = kv.value();
    out.create_revision = kv.create_revision();
  }
  return out;
}

void EtcdStore::FollowLoop() {
  std::chrono::milliseconds pause{100};
  while (!stop_) {
    std::unique_ptr<EtcdClient::WatchStream> stream = client_->OpenWatch();
    if (stream) {
      {
        std::lock_guard lock(stream_mu_);
        stream_ = stream.get();
      }
      bool resumable = !stop_ && FollowStream(*stream);
      {
        std::lock_guard lock(stream_mu_);
        stream_ = nullptr;
      }
      stream->context->TryCancel();
      (void)stream->stream->Finish();
      if (stop_) return;
      client_->MarkFailed(stream->endpoint);
      if (!resumable) {
        // etcd compacted past where this stream resumed: the events between are gone, so every
        // watcher re-lists, and the window starts again where etcd's history starts.
        std::lock_guard lock(publish_mu_);
        if (hub_.LiveWatchers() > 0) {
          hub_.CloseAll(Status::ResourceExhausted(fmt::format(
              "the etcd watch resumed after revision {} was compacted; re-list and re-watch",
              delivered_)));
        }
        window_.clear();
        window_start_ = delivered_ = std::max(delivered_, compacted_.load());
        delivered_waiters_.Wake(delivered_);
        continue;
      }
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(1000));
  }
}

bool EtcdStore::FollowStream(EtcdClient::WatchStream& stream) {
  Revision from;
  {
    std::lock_guard lock(publish_mu_);
    from = delivered_;
  }
  const std::string key = prefix_ + "/";
  {
    std::lock_guard lock(stream_mu_);
    if (!stream.stream->Write(CreateRequest(key, PrefixEnd(key), from))) return true;
  }
  WatchResponse response;
  // etcd 3.4 answers a progress request on a path of its own, so the answer may overtake events
  // of revisions it covers that are on their way; they have surely arrived by the next answer,
  // so a progress report counts only once the next one comes.
  Revision previous_progress = 0;
  while (stream.stream->Read(&response)) {
    if (response.compact_revision() > 0) {
      NoteCompacted(response.compact_revision());
      return false;
    }
    if (response.canceled()) return true;  // e.g. the member lost its leader: next member
    if (IsProgress(response)) {
      Publish({}, previous_progress);
      previous_progress = response.header().revision();
      continue;
    }
    std::vector<Event> events;
    events.reserve(response.events_size());
    for (const auto& e : response.events()) {
      if (auto event = ToEvent(e)) events.push_back(std::move(*event));
    }
    if (!events.empty()) Publish(std::move(events), 0);
  }
  return true;
}

void EtcdStore::Publish(std::vector<Event> events, Revision progress) {
  std::lock_guard lock(publish_mu_);
  if (!events.empty()) {
    hub_.Publish(events);
    progress = std::max(progress, events.back().revision);
    for (Event& e : events) window_.push_back(std::move(e));
    while (window_.size() > options_.history_events) {
      window_start_ = window_.front().revision;
      window_.pop_front();
    }
    // A revision shared by several events stays whole: the window starts after all of them.
    while (!window_.empty() && window_.front().revision == window_start_) window_.pop_front();
  }
  if (progress > delivered_) {
    delivered_ = progress;
    delivered_waiters_.Wake(progress);
  }
}

void EtcdStore::RequestProgress() {
  std::lock_guard lock(stream_mu_);
  if (stream_) (void)stream_->stream->Write(ProgressRequest());
}

void EtcdStore::AwaitDelivered(Revision revision) {
  std::unique_lock lock(publish_mu_);
  delivered_waiters_.WaitFor(lock, revision, options_.publish_wait,
                             [&] { return delivered_ >= revision || stop_; });
}

Result<Revision> EtcdStore::ReadRevision() {
  // Callers share reads: a caller waits for the first read that started after it arrived (so
  // the answer is as fresh as a read of its own), instead of each sending one.
  std::unique_lock lock(read_mu_);
  const uint64_t needed = reads_started_ + 1;  // the next read to start
  while (reads_finished_ < needed) {
    if (read_in_flight_) {
      read_cv_.wait(lock);
      continue;
    }
    read_in_flight_ = true;
    ++reads_started_;
    lock.unlock();
    Result<Revision> read = client_->CurrentRevision();
    lock.lock();
    read_in_flight_ = false;
    ++reads_finished_;
    last_read_ = read;
    read_cv_.notify_all();
  }
  return last_read_;
}

Revision EtcdStore::CurrentRevision() {
  auto now = ReadRevision();
  std::unique_lock lock(publish_mu_);
  if (!now.ok()) return delivered_;
  const Revision target = *now;
  const auto give_up = std::chrono::steady_clock::now() + options_.publish_wait;
  // The events up to `target` are usually in flight already; when nothing under the prefix
  // changed, only progress reports say the stream has passed it.
  while (delivered_ < target && !stop_ && std::chrono::steady_clock::now() < give_up) {
    if (!delivered_waiters_.WaitFor(lock, target, kProgressPoll,
                                    [&] { return delivered_ >= target || stop_; })) {
      lock.unlock();
      RequestProgress();
      lock.lock();
    }
  }
  return std::min(target, delivered_);
}

Result<std::shared_ptr<Watcher>> EtcdStore::Watch(const std::string& prefix,
                                                  Revision from_revision) {
  ETNA_RETURN_IF_ERROR(ValidateKey(prefix));
  if (from_revision < compacted_) {
    return Status::Gone(
        fmt::format("too old resource version: {} ({})", from_revision, compacted_.load()));
  }
  {
    std::lock_guard lock(publish_mu_);
    if (from_revision >= window_start_) {
      std::vector<Event> history;
      for (const Event& e : window_) {
        if (e.revision > from_revision && HasPrefix(e.key, prefix)) history.push_back(e);
      }
      return std::shared_ptr<Watcher>(hub_.Register(prefix, from_revision, history));
    }
  }
  return WatchFromHistory(prefix, from_revision);
}

Result<std::shared_ptr<Watcher>> EtcdStore::WatchFromHistory(const std::string& prefix,
                                                             Revision from) {
  // etcd's history is read up to the window's first event, which is certain to come (it is in
  // etcd's history), unlike a progress report that etcd 3.4 may send before the history.
  Revision target, sentinel;
  {
    std::lock_guard lock(publish_mu_);
    if (window_.empty()) {
      return Status::Gone(
          fmt::format("too old resource version: {} (this server's watch history starts at {})",
                      from, window_start_));
    }
    target = window_start_;
    sentinel = window_.front().revision;
  }
  std::unique_ptr<EtcdClient::WatchStream> stream = client_->OpenWatch();
  if (!stream) return Status::Unavailable("no etcd member to watch");
  const std::string key = prefix_ + "/";
  if (!stream->stream->Write(CreateRequest(key, PrefixEnd(key), from))) {
    return Status::Unavailable(
        fmt::format("etcd watch on {}: the stream closed", stream->endpoint));
  }
  std::vector<Event> history;
  Status failed = Status::Unavailable(
      fmt::format("etcd watch on {} ended while replaying history", stream->endpoint));
  WatchResponse response;
  bool reached = false;
  while (!reached && stream->stream->Read(&response)) {
    if (response.compact_revision() > 0) {
      NoteCompacted(response.compact_revision());
      failed = Status::Gone(
          fmt::format("too old resource version: {} ({})", from, response.compact_revision()));
      break;
    }
    if (response.canceled()) {
      failed =
          Status::Unavailable(fmt::format("etcd watch cancelled: {}", response.cancel_reason()));
      break;
    }
    for (const auto& e : response.events()) {
      if (e.kv().mod_revision() >= sentinel) {
        reached = true;
        break;
      }
      auto event = ToEvent(e);
      if (event && event->revision <= target && HasPrefix(event->key, prefix)) {
        history.push_back(std::move(*event));
      }
    }
  }
  stream->context->TryCancel();
  (void)stream->stream->Finish();
  if (!reached) return failed;
  std::lock_guard lock(publish_mu_);
  if (window_start_ != target) {  // the window moved on meanwhile: its start is not covered
    return Status::Gone(fmt::format(
        "too old resource version: {} (the watch window moved past it while replaying)", from));
  }
  for (const Event& e : window_) {
    if (HasPrefix(e.key, prefix)) history.push_back(e);
  }
  return std::shared_ptr<Watcher>(hub_.Register(prefix, from, history));
}

}  // namespace etna::store
