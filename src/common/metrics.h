// Metrics: counters, gauges and histograms with labels, rendered in the Prometheus text format
// (version 0.0.4) for a component's /metrics. A Registry owns named families; a family holds one
// series per combination of label values, created on first use. Names and label names are the
// caller's (Volcano's, Kubernetes' or dcgm-exporter's, see docs/monitoring.md).
//
//   metrics::Registry registry;
//   auto& requests = registry.Counter("apiserver_request_total", "Requests.", {"verb", "code"});
//   requests.Add({"GET", "200"});
//   std::string text = registry.Render();
//
// Thread-safety: every method may be called from any thread; a family's series are guarded by
// the family's own mutex, so components updating different families do not contend.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace etna::metrics {

using LabelValues = std::vector<std::string>;

// A label value in the text format: \, " and newline escaped.
std::string EscapeLabelValue(std::string_view value);

// Exponential bucket bounds: start, start*factor, ... (count bounds), as Prometheus' client.
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// Shared by the three kinds: name, help, label names and rendering of one family.
class Family {
 public:
  Family(std::string name, std::string help, std::vector<std::string> label_names)
      : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)) {}
  virtual ~Family() = default;
  const std::string& name() const { return name_; }
  // Appends the family's HELP, TYPE and samples.
  virtual void Render(std::string& out) const = 0;

 protected:
  // `{a="x",b="y"}` for the family's label names with `values` (and an extra label last).
  std::string LabelText(const LabelValues& values, const std::string& extra_name = {},
                        const std::string& extra_value = {}) const;
  void Header(std::string& out, const char* type) const;
  // The label values padded or cut to the family's label count.
  LabelValues Fit(const LabelValues& values) const;

  std::string name_;
  std::string help_;
  std::vector<std::string> label_names_;
  mutable std::mutex mu_;
};

// One number per series: the common part of counters and gauges.
class ValueFamily : public Family {
 public:
  ValueFamily(std::string name, std::string help, std::vector<std::string> label_names,
              const char* type)
      : Family(std::move(name), std::move(help), std::move(label_names)), type_(type) {}
  double Value(const LabelValues& values) const;
  void Render(std::string& out) const override;

 protected:
  void AddTo(const LabelValues& values, double amount);

  const char* type_;
  std::map<LabelValues, double> series_;
};

class CounterFamily final : public ValueFamily {
 public:
  CounterFamily(std::string name, std::string help, std::vector<std::string> label_names)
      : ValueFamily(std::move(name), std::move(help), std::move(label_names), "counter") {}
  void Add(const LabelValues& values, double amount = 1) { AddTo(values, amount); }
};

class GaugeFamily final : public ValueFamily {
 public:
  GaugeFamily(std::string name, std::string help, std::vector<std::string> label_names)
      : ValueFamily(std::move(name), std::move(help), std::move(label_names), "gauge") {}
  void Set(const LabelValues& values, double value);
  void Add(const LabelValues& values, double amount) { AddTo(values, amount); }
  // Drops one series (e.g. a deleted queue's).
  void Remove(const LabelValues& values);
  // Replaces every series at once, so a scrape never sees a half-updated set (series that are
  // not in `series` disappear, e.g. a deleted queue's).
  void ReplaceAll(std::map<LabelValues, double> series);
};

class HistogramFamily final : public Family {
 public:
  HistogramFamily(std::string name, std::string help, std::vector<std::string> label_names,
                  std::vector<double> bounds)
      : Family(std::move(name), std::move(help), std::move(label_names)),
        bounds_(std::move(bounds)) {}
  void Observe(const LabelValues& values, double value);
  // Observations so far in the series (its _count).
  uint64_t Count(const LabelValues& values) const;
  void Render(std::string& out) const override;

 private:
  struct Series {
    std::vector<uint64_t> buckets;  // per bound, not cumulative; the +Inf one last
    double sum = 0;
    uint64_t count = 0;
  };
  std::vector<double> bounds_;
  std::map<LabelValues, Series> series_;
};

class Registry {
 public:
  // Declares a family, or returns the one already declared under `name` (which must be of the
  // same kind; a different kind is a programming error and aborts).
  CounterFamily& Counter(const std::string& name, const std::string& help,
                         std::vector<std::string> label_names = {});
  GaugeFamily& Gauge(const std::string& name, const std::string& help,
                     std::vector<std::string> label_names = {});
  HistogramFamily& Histogram(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names, std::vector<double> bounds);
  // Every family in declaration order.
  std::string Render() const;

 private:
  template <typename T, typename... Args>
  T& Declare(const std::string& name, Args&&... args);

  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Family>> families_;
};

// The Content-Type of Render()'s text.
inline constexpr char kTextContentType[] = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace etna::metrics
