// MultiplexedWatch: several watch streams of one client in one response, for the web dashboard
// (docs/dashboard.md): a browser opens at most six HTTP/1.1 connections to a server, and one
// per watched resource left none for its other requests. GET /ui/watch?watch=TARGET&watch=...
// runs each TARGET (an ordinary watch URL) as its own request, with the caller's credentials,
// authorization and limits; the reply interleaves their event lines as "<i> <line>\n", i being
// the target's position. It ends when any of them ends (the client resumes each from its last
// resourceVersion).
// Thread-safety: as net::http::ResponseStream (Read and Cancel on the connection's strand).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "net/http/message.h"

namespace etna::api::server {

// The most targets one multiplexed watch may carry.
inline constexpr size_t kMaxMultiplexedWatches = 16;

class MultiplexedWatch : public net::http::ResponseStream {
 public:
  explicit MultiplexedWatch(std::vector<std::shared_ptr<net::http::ResponseStream>> streams);

  void Start(std::function<void()> wake) override;
  std::string Read(bool* done) override;
  void Cancel() override;

 private:
  struct Part {
    std::shared_ptr<net::http::ResponseStream> stream;
    std::string pending;  // bytes after the last complete line
  };
  std::vector<Part> parts_;
  bool ended_ = false;
};

}  // namespace etna::api::server
