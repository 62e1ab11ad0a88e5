// WaitFor: the one polling wait of etna's tests, for the asynchrony that stays real in them
// (agent processes, informers and workers on their own threads, servers). Where a synchronous
// seam exists (Controller::SyncOnce, a condition variable, a future), tests use that instead.
// Header-only (target etna_common_testing), so that any test can use it without upper layers.
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace etna::common_testing {

// Polls `done` every `tick` until it holds or `timeout` has passed; returns its last answer.
inline bool WaitFor(const std::function<bool()>& done,
                    std::chrono::milliseconds timeout = std::chrono::seconds(20),
                    std::chrono::milliseconds tick = std::chrono::milliseconds(10)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(tick);
  }
  return done();
}

}  // namespace etna::common_testing
