#include "common/metrics.h"

#include <gtest/gtest.h>

#include <thread>

namespace etna::metrics {
namespace {

TEST(MetricsTest, CounterAndGaugeRenderInTheTextFormat) {
  Registry r;
  auto& requests = r.Counter("req_total", "Requests by code.", {"verb", "code"});
  requests.Add({"GET", "200"});
  requests.Add({"GET", "200"}, 2);
  requests.Add({"PUT", "409"});
  r.Gauge("open", "Open \"streams\"\\now.").Set({}, 1.5);
  EXPECT_EQ(r.Render(),
            "# HELP req_total Requests by code.\n"
            "# TYPE req_total counter\n"
            "req_total{verb=\"GET\",code=\"200\"} 3\n"
            "req_total{verb=\"PUT\",code=\"409\"} 1\n"
            "# HELP open Open \"streams\"\\\\now.\n"
            "# TYPE open gauge\n"
            "open 1.5\n");
}

TEST(MetricsTest, LabelValuesAreEscaped) {
  Registry r;
  r.Gauge("g", "h", {"queue_name"}).Set({"a\"b\\c\nd"}, 1);
  EXPECT_NE(r.Render().find("g{queue_name=\"a\\\"b\\\\c\\nd\"} 1\n"), std::string::npos);
}

TEST(MetricsTest, HistogramBucketsAreCumulativeWithInf) {
  Registry r;
  auto& h = r.Histogram("lat_ms", "Latency.", {"action"}, ExponentialBuckets(5, 2, 3));
  for (double v : {1.0, 5.0, 7.0, 100.0}) h.Observe({"allocate"}, v);
  EXPECT_EQ(r.Render(),
            "# HELP lat_ms Latency.\n"
            "# TYPE lat_ms histogram\n"
            "lat_ms_bucket{action=\"allocate\",le=\"5\"} 2\n"
            "lat_ms_bucket{action=\"allocate\",le=\"10\"} 3\n"
            "lat_ms_bucket{action=\"allocate\",le=\"20\"} 3\n"
            "lat_ms_bucket{action=\"allocate\",le=\"+Inf\"} 4\n"
            "lat_ms_sum{action=\"allocate\"} 113\n"
            "lat_ms_count{action=\"allocate\"} 4\n");
  EXPECT_EQ(h.Count({"allocate"}), 4u);
}

TEST(MetricsTest, ReplaceAllDropsSeriesNotGiven) {
  Registry r;
  auto& g = r.Gauge("w", "Weight.", {"queue_name"});
  g.Set({"a"}, 1);
  g.Set({"b"}, 2);
  g.ReplaceAll({{{"b"}, 3}});
  EXPECT_EQ(g.Value({"a"}), 0);
  EXPECT_EQ(r.Render().find("queue_name=\"a\""), std::string::npos);
  EXPECT_NE(r.Render().find("w{queue_name=\"b\"} 3\n"), std::string::npos);
  g.Remove({"b"});
  EXPECT_EQ(r.Render(), "# HELP w Weight.\n# TYPE w gauge\n");
}

TEST(MetricsTest, DeclaringTwiceReturnsTheSameFamily) {
  Registry r;
  r.Counter("c_total", "C.").Add({});
  r.Counter("c_total", "C.").Add({});
  EXPECT_EQ(r.Counter("c_total", "C.").Value({}), 2);
}

TEST(MetricsTest, ConcurrentUpdatesAreAllCounted) {
  Registry r;
  auto& c = r.Counter("n_total", "N.", {"t"});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&c] {
      for (int i = 0; i < 1000; ++i) c.Add({"x"});
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.Value({"x"}), 4000);
}

}  // namespace
}  // namespace etna::metrics
