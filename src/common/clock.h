// Injectable time. The scheduling core never reads the system clock: it gets a Clock (or just a
// timestamp in its snapshot), so tests drive time with FakeClock and never sleep.
//
// Thread-safety: SystemClock and SteadyClock are stateless; FakeClock is safe to read and advance
// from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace etna {

// Milliseconds since the Unix epoch.
using TimeMs = int64_t;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimeMs NowMs() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimeMs NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

// Milliseconds of std::chrono::steady_clock: never jumps with the wall clock, for deadlines a
// process measures on its own (an agent's time since its last lease renewal).
class SteadyClock final : public Clock {
 public:
  TimeMs NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

class FakeClock final : public Clock {
 public:
  explicit FakeClock(TimeMs start = 1'700'000'000'000) : now_(start) {}
  TimeMs NowMs() const override { return now_.load(); }
  void Advance(TimeMs delta) { now_ += delta; }
  void Set(TimeMs t) { now_ = t; }

 private:
  std::atomic<TimeMs> now_;
};

}  // namespace etna
