#include "sim/generator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/rng.h"

namespace etna::sim {
namespace {

constexpr TimeMs kMinute = 60'000;
constexpr TimeMs kHour = 60 * kMinute;
constexpr TimeMs kDay = 24 * kHour;

SimJob Make(std::string name, std::string queue, TimeMs submit, TimeMs duration, int gpus_per_task,
            int tasks) {
  SimJob j;
  j.name = std::move(name);
  j.queue = std::move(queue);
  j.submit_ms = submit;
  j.duration_ms = duration;
  j.tasks = tasks;
  j.request.Set(kCpu, int64_t{8'000} * gpus_per_task);
  j.request.Set(kMemory, (int64_t{64} << 30) * gpus_per_task);
  j.request.Set(kGpu, int64_t{1000} * gpus_per_task);
  return j;
}

// Exponential inter-arrival times of mean `mean_ms`.
TimeMs NextGap(Rng& rng, double mean_ms) {
  return static_cast<TimeMs>(std::ceil(-std::log(1.0 - rng.UniformDouble()) * mean_ms));
}

std::vector<SimJob> SeedShapes(const GeneratorOptions& o) {
  Rng rng(o.seed);
  const TimeMs horizon = o.days * kDay;
  std::vector<SimJob> out;
  // Inference: services of 1-2 GPUs for the whole horizon, about 10 % of the GPUs.
  int service_gpus = 0;
  for (int i = 0; service_gpus < std::max(1, o.gpus / 10); ++i) {
    int gpus = 1 + static_cast<int>(rng.Uniform(2));
    service_gpus += gpus;
    out.push_back(Make(fmt::format("svc-{}", i), "inference", static_cast<TimeMs>(i) * kMinute,
                       horizon, gpus, 1));
  }
  // Training: gangs of 1, 2, 4, 8, 16, 32 or 64 GPUs (capped at the cluster), 2 h to 14 days,
  // log-uniform; Poisson arrivals sized to ask 60 % of the GPUs on average.
  const int sizes[] = {1, 2, 4, 8, 16, 32, 64};
  double mean_gpu_ms = 0;
  int n_sizes = 0;
  for (int s : sizes) {
    if (s > o.gpus) break;
    ++n_sizes;
  }
  const double lo = std::log(2.0 * kHour), hi = std::log(14.0 * kDay);
  const double mean_duration = (std::exp(hi) - std::exp(lo)) / (hi - lo);
  for (int k = 0; k < n_sizes; ++k) mean_gpu_ms += sizes[k] * mean_duration / n_sizes;
  const double training_gap = mean_gpu_ms / (0.6 * o.gpus);
  int t = 0;
  for (TimeMs at = NextGap(rng, training_gap); at < horizon; at += NextGap(rng, training_gap)) {
    int gpus = sizes[rng.Uniform(static_cast<uint64_t>(n_sizes))];
    auto duration = static_cast<TimeMs>(std::exp(lo + (hi - lo) * rng.UniformDouble()));
    SimJob j = gpus <= 8 ? Make(fmt::format("train-{}", t), "training", at, duration, gpus, 1)
                         : Make(fmt::format("train-{}", t), "training", at, duration, 8, gpus / 8);
    j.checkpoint_interval_ms = kHour;
    out.push_back(std::move(j));
    ++t;
  }
  // Experiments: bursts of 10-60 one-GPU jobs of 10-90 minutes, 3 a day on average.
  int e = 0;
  for (TimeMs at = NextGap(rng, kDay / 3.0); at < horizon; at += NextGap(rng, kDay / 3.0)) {
    int count = 10 + static_cast<int>(rng.Uniform(51));
    for (int i = 0; i < count; ++i) {
      TimeMs duration = (10 + static_cast<TimeMs>(rng.Uniform(81))) * kMinute;
      out.push_back(Make(fmt::format("exp-{}", e++), "experiment", at + i * 1000, duration, 1, 1));
    }
  }
  return out;
}

std::vector<SimJob> BurstySteady(const GeneratorOptions& o) {
  std::vector<SimJob> out;
  const TimeMs horizon = o.days * kDay;
  int b = 0;
  for (TimeMs day = 0; day < horizon; day += kDay) {
    for (int i = 0; i < 3 * o.gpus; ++i) {
      out.push_back(Make(fmt::format("bursty-{}", b++), "bursty", day, 6 * kHour, 1, 1));
    }
  }
  const auto gap = static_cast<TimeMs>(std::llround(static_cast<double>(kHour) / (0.62 * o.gpus)));
  int s = 0;
  for (TimeMs at = kDay; at < horizon; at += gap) {
    out.push_back(Make(fmt::format("steady-{}", s++), "steady", at, kHour, 1, 1));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const SimJob& a, const SimJob& c) { return a.submit_ms < c.submit_ms; });
  return out;
}

}  // namespace

Result<std::vector<SimJob>> GenerateTrace(const GeneratorOptions& options) {
  if (options.days < 1 || options.days > 3650) {
    return Status::InvalidArgument(fmt::format("days: {} is not within 1..3650", options.days));
  }
  if (options.gpus < 1 || options.gpus > 100'000) {
    return Status::InvalidArgument(fmt::format("gpus: {} is not within 1..100000", options.gpus));
  }
  if (options.shape == "seed") return SeedShapes(options);
  if (options.shape == "bursty-steady") return BurstySteady(options);
  return Status::InvalidArgument(
      fmt::format("shape: \"{}\" is not one of seed, bursty-steady", options.shape));
}

std::string JobCsv(const std::vector<SimJob>& jobs) {
  std::string out =
      "name,queue,submit_s,duration_s,tasks,gpus,cpu,memory,priority,gpu_models,checkpoint_s\n";
  for (const SimJob& j : jobs) {
    std::string models;
    for (const std::string& m : j.gpu_models) models += (models.empty() ? "" : "|") + m;
    out += fmt::format("{},{},{},{},{},{:g},{}m,{},{},{},{}\n", j.name, j.queue,
                       SecondsText(j.submit_ms), SecondsText(j.duration_ms), j.tasks,
                       static_cast<double>(j.request.Get(kGpu)) / 1000, j.request.Get(kCpu),
                       j.request.Get(kMemory), j.priority, models,
                       SecondsText(j.checkpoint_interval_ms));
  }
  return out;
}

}  // namespace etna::sim
