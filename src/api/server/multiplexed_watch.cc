#include "api/server/multiplexed_watch.h"

namespace etna::api::server {

MultiplexedWatch::MultiplexedWatch(
    std::vector<std::shared_ptr<net::http::ResponseStream>> streams) {
  for (auto& s : streams) parts_.push_back({std::move(s), ""});
}

void MultiplexedWatch::Start(std::function<void()> wake) {
  for (auto& p : parts_) p.stream->Start(wake);
}

std::string MultiplexedWatch::Read(bool* done) {
  std::string out;
  bool any_done = false;
  for (size_t i = 0; i < parts_.size(); ++i) {
    Part& p = parts_[i];
    bool part_done = false;
    p.pending += p.stream->Read(&part_done);
    size_t start = 0;
    for (size_t nl = p.pending.find('\n'); nl != std::string::npos;
         nl = p.pending.find('\n', start)) {
      if (nl > start) {
        out += std::to_string(i);
        out += ' ';
        out.append(p.pending, start, nl + 1 - start);
      }
      start = nl + 1;
    }
    p.pending.erase(0, start);
    any_done = any_done || part_done;
  }
  if (any_done && !ended_) {
    ended_ = true;
    Cancel();
  }
  *done = ended_;
  return out;
}

void MultiplexedWatch::Cancel() {
  for (auto& p : parts_) p.stream->Cancel();
}

}  // namespace etna::api::server
