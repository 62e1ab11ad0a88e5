// A watch reply: the store's events under one prefix, filtered by selectors, as
// newline-terminated `{"type":...,"object":...}` JSON lines (kubectl-protocol.md §9), optionally
// with Table objects for `kubectl get -w`.
//
// Starts with synthetic ADDED events for the current matches when the client gave no
// resourceVersion (or "0"); ends at timeoutSeconds; a store watcher closed because it fell
// behind or the store shut down ends the stream (clients re-watch); an expired revision is an
// ERROR event with a 410 Status.
// Thread-safety: as net::http::ResponseStream.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/codec/selectors.h"
#include "api/resources/registry.h"
#include "net/http/message.h"
#include "store/store.h"

namespace etna::api::server {

class Ticker;

struct WatchFormat {
  const resources::ResourceInfo* info = nullptr;
  codec::LabelSelector labels;
  codec::FieldSelector fields;
  bool table = false;
  std::string include_object = "Metadata";
  std::function<std::chrono::system_clock::time_point()> now;
};

class WatchStream : public net::http::ResponseStream {
 public:
  // `initial` are stored objects (value, revision) to send as ADDED first.
  WatchStream(std::shared_ptr<store::Watcher> watcher, WatchFormat format,
              std::vector<store::KeyValue> initial,
              std::optional<std::chrono::steady_clock::time_point> deadline, Ticker* ticker);
  // A stream that only reports an expired revision and ends.
  static std::shared_ptr<WatchStream> Expired(std::string message);

  void Start(std::function<void()> wake) override;
  std::string Read(bool* done) override;
  void Cancel() override;

  // One event line for a stored object; empty when the object does not pass the filters.
  static std::string FormatEvent(const WatchFormat& format, const char* type,
                                 std::string_view stored, store::Revision revision);

 private:
  WatchStream() = default;
  std::shared_ptr<store::Watcher> watcher_;
  WatchFormat format_;
  std::vector<store::KeyValue> initial_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  Ticker* ticker_ = nullptr;
  std::function<void()> wake_;
  std::string final_line_;  // an ERROR event to send before ending
  bool ended_ = false;
};

}  // namespace etna::api::server
