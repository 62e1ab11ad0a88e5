#include "common/metrics.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <limits>

namespace etna::metrics {
namespace {

// Prometheus' text format: HELP escapes \ and newline, label values also ".
std::string Escape(std::string_view s, bool quote) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quote) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<int64_t>(v));
  return fmt::format("{}", v);
}

}  // namespace

std::string EscapeLabelValue(std::string_view value) { return Escape(value, true); }

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(start);
    start *= factor;
  }
  return out;
}

LabelValues Family::Fit(const LabelValues& values) const {
  LabelValues out = values;
  out.resize(label_names_.size());
  return out;
}

std::string Family::LabelText(const LabelValues& values, const std::string& extra_name,
                              const std::string& extra_value) const {
  std::string out;
  for (size_t i = 0; i < label_names_.size(); ++i) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}=\"{}\"", label_names_[i], Escape(values[i], true));
  }
  if (!extra_name.empty()) {
    if (!out.empty()) out += ',';
    out += fmt::format("{}=\"{}\"", extra_name, Escape(extra_value, true));
  }
  return out.empty() ? out : "{" + out + "}";
}

void Family::Header(std::string& out, const char* type) const {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name_, Escape(help_, false), name_, type);
}

void ValueFamily::AddTo(const LabelValues& values, double amount) {
  std::lock_guard lock(mu_);
  series_[Fit(values)] += amount;
}

double ValueFamily::Value(const LabelValues& values) const {
  std::lock_guard lock(mu_);
  auto it = series_.find(Fit(values));
  return it == series_.end() ? 0 : it->second;
}

void ValueFamily::Render(std::string& out) const {
  Header(out, type_);
  std::lock_guard lock(mu_);
  for (const auto& [labels, v] : series_) {
    out += fmt::format("{}{} {}\n", name_, LabelText(labels), Number(v));
  }
}

void GaugeFamily::Set(const LabelValues& values, double value) {
  std::lock_guard lock(mu_);
  series_[Fit(values)] = value;
}

void GaugeFamily::Remove(const LabelValues& values) {
  std::lock_guard lock(mu_);
  series_.erase(Fit(values));
}

void GaugeFamily::ReplaceAll(std::map<LabelValues, double> series) {
  std::map<LabelValues, double> fitted;
  for (auto& [labels, v] : series) fitted[Fit(labels)] = v;
  std::lock_guard lock(mu_);
  series_.swap(fitted);
}

void HistogramFamily::Observe(const LabelValues& values, double value) {
  std::lock_guard lock(mu_);
  Series& s = series_[Fit(values)];
  if (s.buckets.empty()) s.buckets.assign(bounds_.size() + 1, 0);
  size_t i = 0;
  while (i < bounds_.size() && value > bounds_[i]) ++i;
  ++s.buckets[i];
  s.sum += value;
  ++s.count;
}

uint64_t HistogramFamily::Count(const LabelValues& values) const {
  std::lock_guard lock(mu_);
  auto it = series_.find(Fit(values));
  return it == series_.end() ? 0 : it->second.count;
}

void HistogramFamily::Render(std::string& out) const {
  Header(out, "histogram");
  std::lock_guard lock(mu_);
  for (const auto& [labels, s] : series_) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i <= bounds_.size(); ++i) {
      cumulative += s.buckets[i];
      std::string le = i < bounds_.size() ? Number(bounds_[i]) : "+Inf";
      out += fmt::format("{}_bucket{} {}\n", name_, LabelText(labels, "le", le), cumulative);
    }
    out += fmt::format("{}_sum{} {}\n", name_, LabelText(labels), Number(s.sum));
    out += fmt::format("{}_count{} {}\n", name_, LabelText(labels), s.count);
  }
}

template <typename T, typename... Args>
T& Registry::Declare(const std::string& name, Args&&... args) {
  std::lock_guard lock(mu_);
  for (auto& f : families_) {
    if (f->name() != name) continue;
    auto* typed = dynamic_cast<T*>(f.get());
    if (!typed) {
      fmt::print(stderr, "metrics: {} declared twice with different kinds\n", name);
      std::abort();
    }
    return *typed;
  }
  families_.push_back(std::make_unique<T>(name, std::forward<Args>(args)...));
  return static_cast<T&>(*families_.back());
}

CounterFamily& Registry::Counter(const std::string& name, const std::string& help,
                                 std::vector<std::string> label_names) {
  return Declare<CounterFamily>(name, help, std::move(label_names));
}

GaugeFamily& Registry::Gauge(const std::string& name, const std::string& help,
                             std::vector<std::string> label_names) {
  return Declare<GaugeFamily>(name, help, std::move(label_names));
}

HistogramFamily& Registry::Histogram(const std::string& name, const std::string& help,
                                     std::vector<std::string> label_names,
                                     std::vector<double> bounds) {
  return Declare<HistogramFamily>(name, help, std::move(label_names), std::move(bounds));
}

std::string Registry::Render() const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& f : families_) f->Render(out);
  return out;
}

}  // namespace etna::metrics
