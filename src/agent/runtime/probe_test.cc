// ProbeTracker's timing rules on a probe that always fails fast (a TCP connect to a closed
// loopback port): no check before initialDelaySeconds, then a verdict after failureThreshold.
#include "agent/runtime/probe.h"

#include <gtest/gtest.h>

#include "common/testing/wait.h"

namespace etna::agent::runtime {
namespace {

using common_testing::WaitFor;
using Verdict = ProbeTracker::Verdict;

constexpr TimeMs kStarted = 1'000'000;

nlohmann::json FailingProbe(int initial_delay_seconds) {
  return {{"tcpSocket", {{"port", 1}}},
          {"initialDelaySeconds", initial_delay_seconds},
          {"periodSeconds", 5},
          {"timeoutSeconds", 1},
          {"failureThreshold", 1}};
}

TEST(ProbeTrackerTest, NoCheckRunsBeforeInitialDelaySeconds) {
  ProbeTracker tracker(FailingProbe(30), ProbeTarget{}, kStarted);
  EXPECT_FALSE(WaitFor([&] { return tracker.Poll(kStarted + 29'999) != Verdict::kUnknown; },
                       std::chrono::milliseconds(300)));
  EXPECT_TRUE(WaitFor([&] { return tracker.Poll(kStarted + 30'000) == Verdict::kFailure; }));
}

TEST(ProbeTrackerTest, WithoutADelayTheFirstPollChecks) {
  ProbeTracker tracker(FailingProbe(0), ProbeTarget{}, kStarted);
  EXPECT_TRUE(WaitFor([&] { return tracker.Poll(kStarted) == Verdict::kFailure; }));
}

}  // namespace
}  // namespace etna::agent::runtime
