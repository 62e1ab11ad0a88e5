// A seeded, portable random number generator. Everything random in etna (simulator shuffles,
// tie-breaking) draws from an Rng passed in, so a run is reproducible from its seed.
//
// Thread-safety: none; give each thread its own Rng.
#pragma once

#include <cstdint>
#include <random>

namespace etna {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  uint64_t Next() { return engine_(); }
  // Uniform integer in [0, n). n must be > 0. Uses rejection sampling, so results do not depend
  // on the standard library's distribution implementations.
  uint64_t Uniform(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do {
      x = engine_();
    } while (x >= limit);
    return x % n;
  }
  // Uniform double in [0, 1).
  double UniformDouble() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  std::mt19937_64& engine() { return engine_; }

  // Fisher-Yates shuffle with this generator.
  template <typename It>
  void Shuffle(It first, It last) {
    auto n = last - first;
    for (auto i = n - 1; i > 0; --i) {
      auto j = static_cast<decltype(i)>(Uniform(static_cast<uint64_t>(i) + 1));
      std::swap(first[i], first[j]);
    }
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace etna
