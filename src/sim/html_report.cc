#include "sim/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/percentile.h"
#include "sim/csv_table.h"

namespace etna::sim {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

struct JobRow {
  std::string queue;
  double wait_s = -1, jct_s = -1, lost_s = 0;
  int preemptions = 0;
};

struct SeriesRow {
  double time_s = 0;
  std::string queue;
  double allocated = 0, deserved = 0;
  int pending = 0, running = 0;
};

struct Run {
  std::string label;
  std::vector<JobRow> jobs;
  std::vector<SeriesRow> series;
};

Result<Run> ParseRun(const ReportRun& in) {
  Run run;
  run.label = in.label;
  ETNA_ASSIGN_OR_RETURN(
      CsvTable jobs, CsvTable::Parse(in.jobs_csv, in.label + " jobs.csv",
                                     {"queue", "wait_s", "jct_s", "preemptions", "lost_work_s"}));
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobRow r;
    r.queue = jobs.Str(i, "queue");
    ETNA_ASSIGN_OR_RETURN(r.wait_s, jobs.Real(i, "wait_s", -1));
    ETNA_ASSIGN_OR_RETURN(r.jct_s, jobs.Real(i, "jct_s", -1));
    ETNA_ASSIGN_OR_RETURN(r.lost_s, jobs.Real(i, "lost_work_s", 0));
    ETNA_ASSIGN_OR_RETURN(int64_t pre, jobs.Int(i, "preemptions", 0, int64_t{1} << 30));
    r.preemptions = static_cast<int>(pre);
    run.jobs.push_back(std::move(r));
  }
  ETNA_ASSIGN_OR_RETURN(CsvTable series,
                        CsvTable::Parse(in.series_csv, in.label + " series.csv",
                                        {"time_s", "queue", "allocated_gpus", "deserved_gpus",
                                         "pending_jobs", "running_jobs"}));
  for (size_t i = 0; i < series.size(); ++i) {
    SeriesRow r;
    r.queue = series.Str(i, "queue");
    ETNA_ASSIGN_OR_RETURN(r.time_s, series.Real(i, "time_s", 0));
    ETNA_ASSIGN_OR_RETURN(r.allocated, series.Real(i, "allocated_gpus", 0));
    ETNA_ASSIGN_OR_RETURN(r.deserved, series.Real(i, "deserved_gpus", 0));
    ETNA_ASSIGN_OR_RETURN(int64_t pending, series.Int(i, "pending_jobs", 0, int64_t{1} << 30));
    ETNA_ASSIGN_OR_RETURN(int64_t running, series.Int(i, "running_jobs", 0, int64_t{1} << 30));
    r.pending = static_cast<int>(pending);
    r.running = static_cast<int>(running);
    run.series.push_back(std::move(r));
  }
  return run;
}

// What the table and the summary say of one queue of one run.
struct QueueStats {
  int jobs = 0;                     // every job of the queue, started or not
  std::vector<double> waits, jcts;  // of those that started, and ended
  int preemptions = 0;
  double lost_s = 0;
};

QueueStats StatsOf(const Run& run, const std::string& queue) {
  QueueStats out;
  for (const JobRow& j : run.jobs) {
    if (j.queue != queue) continue;
    ++out.jobs;
    if (j.wait_s >= 0) out.waits.push_back(j.wait_s);
    if (j.jct_s >= 0) out.jcts.push_back(j.jct_s);
    out.preemptions += j.preemptions;
    out.lost_s += j.lost_s;
  }
  return out;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '"') {
      out += "&quot;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Hours(double s) { return fmt::format("{:.1f} h", s / 3600); }

// One line chart: x and y ranges from the data, 5 ticks per axis, a legend.
class Chart {
 public:
  Chart(std::string title, std::string x_label, std::string y_label)
      : title_(std::move(title)), x_label_(std::move(x_label)), y_label_(std::move(y_label)) {}
  void Add(std::string id, std::string name, std::string colour, bool dashed,
           std::vector<std::pair<double, double>> points) {
    for (const auto& [x, y] : points) {
      x_max_ = std::max(x_max_, x);
      y_max_ = std::max(y_max_, y);
    }
    lines_.push_back(
        {std::move(id), std::move(name), std::move(colour), dashed, std::move(points)});
  }
  void SetYMax(double y) { y_max_ = y; }
  std::string Svg() const {
    constexpr double kW = 640, kH = 300, kL = 60, kR = 170, kT = 30, kB = 45;
    const double pw = kW - kL - kR, ph = kH - kT - kB;
    const double xm = x_max_ > 0 ? x_max_ : 1, ym = y_max_ > 0 ? y_max_ : 1;
    auto X = [&](double x) { return kL + x / xm * pw; };
    auto Y = [&](double y) { return kT + ph - y / ym * ph; };
    std::string out = fmt::format(
        "<svg class=\"chart\" viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" "
        "xmlns=\"http://www.w3.org/2000/svg\">\n<text x=\"{}\" y=\"18\" "
        "class=\"title\">{}</text>\n",
        kW, kH, kW, kH, kL, Escape(title_));
    for (int i = 0; i <= 4; ++i) {
      double xv = xm * i / 4, yv = ym * i / 4;
      out += fmt::format(
          "<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" class=\"grid\"/>"
          "<text x=\"{:.1f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{:.3g}</text>\n"
          "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>"
          "<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{:.3g}</text>\n",
          X(xv), kT, X(xv), kT + ph, X(xv), kT + ph + 15, xv, kL, Y(yv), kL + pw, Y(yv), kL - 5,
          Y(yv) + 4, yv);
    }
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\">{}</text>\n"
        "<text x=\"14\" y=\"{:.1f}\" class=\"axis\" transform=\"rotate(-90 14 {:.1f})\" "
        "text-anchor=\"middle\">{}</text>\n",
        kL + pw / 2, kH - 8, Escape(x_label_), kT + ph / 2, kT + ph / 2, Escape(y_label_));
    for (size_t i = 0; i < lines_.size(); ++i) {
      const Line& l = lines_[i];
      std::string points;
      for (const auto& [x, y] : l.points) points += fmt::format("{:.1f},{:.1f} ", X(x), Y(y));
      out += fmt::format(
          "<polyline data-series=\"{}\" points=\"{}\" fill=\"none\" stroke=\"{}\" "
          "stroke-width=\"1.8\"{}/>\n",
          Escape(l.id), points, l.colour, l.dashed ? " stroke-dasharray=\"6 4\"" : "");
      double ly = kT + 12 + 16 * static_cast<double>(i);
      out += fmt::format(
          "<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"{}\" "
          "stroke-width=\"2\"{}/><text x=\"{}\" y=\"{:.1f}\" class=\"legend\">{}</text>\n",
          kL + pw + 10, ly, kL + pw + 34, ly, l.colour, l.dashed ? " stroke-dasharray=\"6 4\"" : "",
          kL + pw + 40, ly + 4, Escape(l.name));
    }
    return out + "</svg>\n";
  }

 private:
  struct Line {
    std::string id, name, colour;
    bool dashed;
    std::vector<std::pair<double, double>> points;
  };
  std::string title_, x_label_, y_label_;
  double x_max_ = 0, y_max_ = 0;
  std::vector<Line> lines_;
};

std::vector<std::pair<double, double>> Cdf(std::vector<double> values, double scale) {
  std::sort(values.begin(), values.end());
  std::vector<std::pair<double, double>> out;
  const double n = static_cast<double>(values.size());
  // At most 200 steps: the quantiles, so large runs stay small on the page.
  const size_t step = std::max<size_t>(1, values.size() / 200);
  for (size_t i = 0; i < values.size(); i += step) {
    out.push_back({values[i] / scale, static_cast<double>(i + 1) / n});
  }
  if (!values.empty()) out.push_back({values.back() / scale, 1.0});
  return out;
}

std::vector<std::string> QueuesOf(const std::vector<Run>& runs) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const Run& r : runs) {
    for (const JobRow& j : r.jobs) {
      if (seen.insert(j.queue).second) out.push_back(j.queue);
    }
  }
  return out;
}

// Jain's index of allocated/deserved over the queues with work at each sample.
std::vector<std::pair<double, double>> Jain(const Run& run) {
  std::map<double, std::vector<double>> by_time;
  for (const SeriesRow& s : run.series) {
    if (s.queue == "*" || (s.pending == 0 && s.running == 0)) continue;
    by_time[s.time_s];
    if (s.deserved > 0) by_time[s.time_s].push_back(s.allocated / s.deserved);
  }
  std::vector<std::pair<double, double>> out;
  for (const auto& [t, xs] : by_time) {
    double sum = 0, squares = 0;
    for (double x : xs) {
      sum += x;
      squares += x * x;
    }
    out.push_back(
        {t / 3600, squares > 0 ? sum * sum / (static_cast<double>(xs.size()) * squares) : 1.0});
  }
  return out;
}

}  // namespace

Result<std::string> SummaryLines(const std::vector<ReportRun>& inputs) {
  std::string out;
  for (const ReportRun& in : inputs) {
    ETNA_ASSIGN_OR_RETURN(Run run, ParseRun(in));
    std::vector<Run> one = {run};
    for (const std::string& q : QueuesOf(one)) {
      const QueueStats st = StatsOf(run, q);
      out += fmt::format(
          "{} {} jobs={} wait_p50_s={:.0f} wait_p90_s={:.0f} jct_p90_s={:.0f} preemptions={}\n",
          run.label, q, st.jobs, NearestRank(st.waits, 0.5), NearestRank(st.waits, 0.9),
          NearestRank(st.jcts, 0.9), st.preemptions);
    }
  }
  return out;
}

Result<std::string> HtmlReport(const std::string& title, const std::vector<ReportRun>& inputs) {
  std::vector<Run> runs;
  for (const ReportRun& in : inputs) {
    ETNA_ASSIGN_OR_RETURN(Run run, ParseRun(in));
    runs.push_back(std::move(run));
  }
  const std::vector<std::string> queues = QueuesOf(runs);
  auto colour = [&](const std::string& q) {
    size_t i = std::find(queues.begin(), queues.end(), q) - queues.begin();
    return std::string(kPalette[i % std::size(kPalette)]);
  };
  auto run_id = [](size_t r) { return std::string(1, static_cast<char>('A' + r)); };
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title>\n<style>\n"
      "body{{font-family:sans-serif;margin:24px;color:#222}} table{{border-collapse:collapse}}\n"
      "td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}} td:first-child,"
      "td:nth-child(2){{text-align:left}}\n.chart{{margin:8px 8px 16px 0}} .title{{font-weight:"
      "bold;font-size:13px}} .tick{{font-size:10px;fill:#555}} .axis{{font-size:11px}}\n"
      ".legend{{font-size:11px}} .grid{{stroke:#e5e5e5}}\n</style></head><body>\n<h1>{}</h1>\n",
      Escape(title), Escape(title));
  html += "<p>Runs: ";
  for (size_t r = 0; r < runs.size(); ++r) {
    html += fmt::format("<b>{}</b> = {}{}", run_id(r), Escape(runs[r].label),
                        r + 1 < runs.size() ? "; " : "");
  }
  html += runs.size() > 1 ? " (B dashed in the CDFs).</p>\n" : ".</p>\n";
  html +=
      "<h2>Per queue</h2>\n<table><tr><th>run</th><th>queue</th><th>jobs</th><th>wait p50</th>"
      "<th>wait p90</th><th>wait p99</th><th>JCT p50</th><th>JCT p90</th><th>preemptions</th>"
      "<th>work lost</th></tr>\n";
  Chart wait("Wait (submit to start), CDF per queue", "hours", "fraction of jobs");
  Chart jct("Job completion time, CDF per queue", "hours", "fraction of jobs");
  for (size_t r = 0; r < runs.size(); ++r) {
    for (const std::string& q : queues) {
      const QueueStats st = StatsOf(runs[r], q);
      html += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
          run_id(r), Escape(q), st.jobs, Hours(NearestRank(st.waits, 0.5)),
          Hours(NearestRank(st.waits, 0.9)), Hours(NearestRank(st.waits, 0.99)),
          Hours(NearestRank(st.jcts, 0.5)), Hours(NearestRank(st.jcts, 0.9)), st.preemptions,
          Hours(st.lost_s));
      const std::string name = runs.size() > 1 ? q + " (" + run_id(r) + ")" : q;
      wait.Add("wait-cdf:" + q + ":" + run_id(r), name, colour(q), r > 0, Cdf(st.waits, 3600));
      jct.Add("jct-cdf:" + q + ":" + run_id(r), name, colour(q), r > 0, Cdf(st.jcts, 3600));
    }
  }
  html += "</table>\n<h2>Waits and completion times</h2>\n" + wait.Svg() + jct.Svg();
  html += "<h2>Allocation over time</h2>\n";
  Chart utilization("Cluster utilization", "hours", "allocated / cluster GPUs");
  Chart fairness("Fairness: Jain's index of allocated/deserved over the queues with work", "hours",
                 "Jain's index");
  for (size_t r = 0; r < runs.size(); ++r) {
    Chart allocation(
        fmt::format("{}: GPUs per queue, allocated (solid) and deserved (dashed)", run_id(r)),
        "hours", "GPUs");
    std::map<std::string, std::vector<std::pair<double, double>>> allocated, deserved;
    std::vector<std::pair<double, double>> used;
    for (const SeriesRow& s : runs[r].series) {
      if (s.queue == "*") {
        used.push_back({s.time_s / 3600, s.deserved > 0 ? s.allocated / s.deserved : 0});
        continue;
      }
      allocated[s.queue].push_back({s.time_s / 3600, s.allocated});
      deserved[s.queue].push_back({s.time_s / 3600, s.deserved});
    }
    for (const std::string& q : queues) {
      allocation.Add("allocated:" + q + ":" + run_id(r), q, colour(q), false, allocated[q]);
      allocation.Add("deserved:" + q + ":" + run_id(r), q + " deserved", colour(q), true,
                     deserved[q]);
    }
    html += allocation.Svg();
    utilization.Add("utilization:*:" + run_id(r), run_id(r), kPalette[r], r > 0, used);
    fairness.Add("jain:*:" + run_id(r), run_id(r), kPalette[r], r > 0, Jain(runs[r]));
  }
  utilization.SetYMax(1);
  fairness.SetYMax(1);
  html += utilization.Svg() + fairness.Svg();
  html += "</body></html>\n";
  return html;
}

}  // namespace etna::sim
