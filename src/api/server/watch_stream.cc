#include "api/server/watch_stream.h"

#include <fmt/format.h>

#include "api/resources/table.h"
#include "api/server/stored_object.h"
#include "api/server/ticker.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

constexpr size_t kMaxBatchBytes = 1 << 20;

std::string ErrorEvent(int code, const std::string& reason, const std::string& message) {
  json status = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
                 {"status", "Failure"}, {"message", message}, {"reason", reason},
                 {"code", code}};
  return json{{"type", "ERROR"}, {"object", status}}.dump() + "\n";
}

}  // namespace

WatchStream::WatchStream(std::shared_ptr<store::Watcher> watcher, WatchFormat format,
                         std::vector<store::KeyValue> initial,
                         std::optional<std::chrono::steady_clock::time_point> deadline,
                         Ticker* ticker)
    : watcher_(std::move(watcher)),
      format_(std::move(format)),
      initial_(std::move(initial)),
      deadline_(deadline),
      ticker_(ticker) {}

std::shared_ptr<WatchStream> WatchStream::Expired(std::string message) {
  std::shared_ptr<WatchStream> stream(new WatchStream());
  stream->final_line_ = ErrorEvent(410, "Expired", message);
  return stream;
}

std::string WatchStream::FormatEvent(const WatchFormat& format, const char* type,
                                     std::string_view stored, store::Revision revision) {
  bool needs_object = format.table || !format.labels.Empty() || !format.fields.Empty();
  if (!needs_object) {
    std::string line = fmt::format("{{\"type\":\"{}\",\"object\":", type);
    line += WithResourceVersion(stored, revision);
    line += "}\n";
    return line;
  }
  // Live events were filtered so as the store queued them (Start); the initial objects and the
  // history queued before Start were not.
  if (!format.fields.MayMatchCompact(stored)) return "";
  auto object = DecodeStored(stored, revision);
  if (!object.ok()) return "";
  if (!format.labels.Empty() &&
      !format.labels.Matches(object->value("/metadata/labels"_json_pointer, json()))) {
    return "";
  }
  if (!format.fields.Empty() && !format.fields.Matches(*object)) return "";
  if (!format.table) return json{{"type", type}, {"object", *object}}.dump() + "\n";
  resources::TableOptions options;
  options.include_object = format.include_object;
  options.with_column_definitions = false;
  options.now = format.now ? format.now() : std::chrono::system_clock::now();
  json table =
      resources::RenderTable(*format.info, {*object}, options, std::to_string(revision), "");
  return json{{"type", type}, {"object", table}}.dump() + "\n";
}

void WatchStream::Start(std::function<void()> wake) {
  wake_ = wake;
  if (watcher_ && !format_.fields.Empty()) {
    // What FormatEvent would drop unread is dropped before it is queued: an agent's watch is
    // not woken by every other node's pods.
    watcher_->SetFilter([fields = format_.fields](const store::Event& e) {
      return fields.MayMatchCompact(e.value);
    });
  }
  if (watcher_) watcher_->SetNotify(wake);
  if (deadline_ && ticker_) ticker_->Schedule(*deadline_, wake);
}

std::string WatchStream::Read(bool* done) {
  *done = false;
  std::string out;
  if (ended_) {
    *done = true;
    return out;
  }
  for (const auto& kv : initial_) {
    out += FormatEvent(format_, "ADDED", kv.value, kv.mod_revision);
  }
  initial_.clear();
  if (watcher_) {
    while (out.size() < kMaxBatchBytes) {
      auto next = watcher_->Next(std::chrono::milliseconds(0));
      if (!next.ok()) {
        // Fell behind or the store closed: end the stream; clients re-list and re-watch.
        if (next.status().code() == StatusCode::kGone) {
          final_line_ = ErrorEvent(410, "Expired", next.status().message());
        }
        ended_ = true;
        break;
      }
      if (!next->has_value()) break;
      const store::Event& event = **next;
      out += FormatEvent(format_, store::EventTypeName(event.type), event.value, event.revision);
    }
  } else {
    ended_ = true;
  }
  if (deadline_ && std::chrono::steady_clock::now() >= *deadline_) ended_ = true;
  if (!ended_ && out.size() >= kMaxBatchBytes && wake_) wake_();  // more is waiting
  if (ended_) {
    out += final_line_;
    final_line_.clear();
    if (watcher_) watcher_->Cancel();
    *done = true;
  }
  return out;
}

void WatchStream::Cancel() {
  ended_ = true;
  if (watcher_) watcher_->Cancel();
}

}  // namespace etna::api::server
