// The nearest-rank percentile, as etna's reports print waits (`etna usage`, the simulator's
// report.html): the smallest value with at least a fraction q of the values at or below it.
// Pure function; thread-safe.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace etna {

// q in (0, 1]; 0 for no values.
inline double NearestRank(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<size_t>(rank, 1, values.size()) - 1];
}

}  // namespace etna
