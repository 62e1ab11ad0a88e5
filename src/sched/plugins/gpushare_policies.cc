#include "sched/plugins/gpushare_policies.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "sched/framework/session.h"

namespace etna::sched {
namespace {

constexpr int64_t kMaxSpecCpu = 128000;  // the simulator's normalisers
constexpr int64_t kMaxSpecGpu = 8000;
constexpr int64_t kMaxScore = 100;

GpuTaskShape ShapeOf(const Task& t) {
  GpuTaskShape s;
  s.cpu_milli = t.request.Get(kCpu);
  int64_t gpu = t.request.Get(kGpu);
  if (gpu > 0 && gpu < 1000) {
    s.num_gpu = 1;
    s.gpu_milli = static_cast<int32_t>(gpu);
  } else if (gpu >= 1000) {
    s.num_gpu = static_cast<int32_t>(gpu / 1000);
    s.gpu_milli = 1000;
  }
  if (s.num_gpu > 0) s.models = AllowedGpuModels(t);
  return s;
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// The state after a task that takes whole GPUs or no GPU: CPU taken, GPUs taken from the
// least-free device that holds one unit (ascending, stable), as the simulator's Sub does.
std::optional<GpuNodeState> Sub(const GpuNodeState& s, const GpuTaskShape& m) {
  GpuNodeState out = s;
  out.cpu_left -= m.cpu_milli;
  if (m.num_gpu == 0) return out;
  std::vector<int> order(s.gpu_left.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return s.gpu_left[a] < s.gpu_left[b]; });
  int left = m.num_gpu;
  for (int i : order) {
    if (left == 0) break;
    if (out.gpu_left[i] >= m.gpu_milli) {
      out.gpu_left[i] -= m.gpu_milli;
      --left;
    }
  }
  if (left > 0) return std::nullopt;
  return out;
}

// Lowest-indexed fully free devices.
std::optional<std::vector<DeviceAllocation>> Exclusive(const GpuNodeState& s, int count) {
  std::vector<DeviceAllocation> out;
  for (size_t i = 0; i < s.gpu_left.size() && static_cast<int>(out.size()) < count; ++i) {
    if (s.gpu_left[i] == 1000) {
      DeviceAllocation d;
      d.gpu = static_cast<int32_t>(i);
      out.push_back(d);
    }
  }
  if (static_cast<int>(out.size()) < count) return std::nullopt;
  return out;
}

std::vector<DeviceAllocation> Share(int gpu, int32_t milli) {
  DeviceAllocation d;
  d.gpu = gpu;
  d.milli = milli;
  return {d};
}

// The device with the least room that holds `milli` (lowest index on ties); -1 when none.
int BestFitDevice(const GpuNodeState& s, int32_t milli) {
  int best = -1;
  for (size_t i = 0; i < s.gpu_left.size(); ++i) {
    if (s.gpu_left[i] < milli) continue;
    if (best < 0 || s.gpu_left[i] < s.gpu_left[best]) best = static_cast<int>(i);
  }
  return best;
}

uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

struct GpuSharePolicyPlugin::State {
  Session* session = nullptr;
  std::unique_ptr<GpuFragModel> frag;
  // fgdplus: the workload's CPU demand per unit of GPU demand, milli-CPU per milli-GPU (all
  // tasks' CPU over the GPU tasks' GPU); 0 when the workload asks no GPU.
  double cpu_per_gpu = 0;
};

const char* GpuSharePolicyPlugin::PluginName(Policy policy) {
  switch (policy) {
    case Policy::kRandom:
      return "randomfit";
    case Policy::kDotProd:
      return "dotprod";
    case Policy::kGpuClustering:
      return "gpuclustering";
    case Policy::kGpuPacking:
      return "gpupacking";
    case Policy::kBestFit:
      return "bestfit";
    case Policy::kFgd:
      return "fgd";
    case Policy::kFgdPlus:
      return "fgdplus";
  }
  return "?";
}

Result<std::vector<WeightedShape>> GpuSharePolicyPlugin::ParseWorkload(const std::string& text) {
  std::vector<WeightedShape> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(';', start);
    if (end == std::string::npos) end = text.size();
    std::string entry = text.substr(start, end - start);
    start = end + 1;
    if (entry.empty()) continue;
    std::vector<std::string> f;
    size_t p = 0;
    for (int i = 0; i < 4; ++i) {
      size_t c = entry.find(':', p);
      if (c == std::string::npos) break;
      f.push_back(entry.substr(p, c - p));
      p = c + 1;
    }
    f.push_back(entry.substr(p));
    auto bad = [&] {
      return Status::InvalidArgument(fmt::format(
          "argument workload: entry \"{}\" is not count:cpu_milli:num_gpu:gpu_milli:models",
          entry));
    };
    if (f.size() != 5) return bad();
    WeightedShape w;
    try {
      size_t used = 0;
      w.weight = std::stod(f[0], &used);
      if (used != f[0].size()) return bad();
      w.shape.cpu_milli = std::stoll(f[1], &used);
      if (used != f[1].size()) return bad();
      w.shape.num_gpu = std::stoi(f[2], &used);
      if (used != f[2].size()) return bad();
      w.shape.gpu_milli = std::stoi(f[3], &used);
      if (used != f[3].size()) return bad();
    } catch (...) {
      return bad();
    }
    w.shape.models = f[4];
    if (w.weight < 0 || w.shape.num_gpu < 0 || w.shape.gpu_milli < 0 || w.shape.gpu_milli > 1000) {
      return bad();
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::string GpuSharePolicyPlugin::FormatWorkload(const std::vector<WeightedShape>& shapes) {
  std::string out;
  for (const auto& s : shapes) {
    if (!out.empty()) out += ';';
    out += fmt::format("{}:{}:{}:{}:{}", s.weight, s.shape.cpu_milli, s.shape.num_gpu,
                       s.shape.gpu_milli, s.shape.models);
  }
  return out;
}

Result<std::unique_ptr<Plugin>> GpuSharePolicyPlugin::Create(Policy policy,
                                                             PluginBuildContext& ctx) {
  Options o;
  int64_t seed = 0;
  ETNA_RETURN_IF_ERROR(ctx.arguments.GetInt("seed", &seed));
  o.seed = static_cast<uint64_t>(seed);
  std::string workload;
  if (ctx.arguments.Has("workload")) {
    ETNA_RETURN_IF_ERROR(ctx.arguments.GetString("workload", &workload));
    ETNA_ASSIGN_OR_RETURN(o.workload, ParseWorkload(workload));
    o.has_workload = true;
  }
  int64_t popularity = o.popularity;
  ETNA_RETURN_IF_ERROR(ctx.arguments.GetInt("popularity", &popularity));
  if (popularity <= 0 || popularity > 100) {
    return Status::InvalidArgument("argument popularity: must be in 1..100");
  }
  o.popularity = static_cast<int>(popularity);
  return std::unique_ptr<Plugin>(std::make_unique<GpuSharePolicyPlugin>(policy, std::move(o)));
}

GpuSharePolicyPlugin::GpuSharePolicyPlugin(Policy policy, Options options)
    : policy_(policy), options_(std::move(options)), state_(std::make_unique<State>()) {}

GpuSharePolicyPlugin::~GpuSharePolicyPlugin() = default;

void GpuSharePolicyPlugin::OnSessionOpen(Session& session) {
  State& st = *state_;
  st.session = &session;
  std::vector<WeightedShape> counts = options_.workload;
  if (!options_.has_workload) {
    for (const Task& t : session.tasks()) {
      if (t.status == TaskStatus::kSucceeded || t.status == TaskStatus::kFailed) continue;
      counts.push_back({ShapeOf(t), 1.0});
    }
  }
  double cpu = 0, gpu = 0;
  for (const auto& c : counts) {
    cpu += c.weight * static_cast<double>(c.shape.cpu_milli);
    gpu += c.weight * c.shape.num_gpu * c.shape.gpu_milli;
  }
  st.cpu_per_gpu = gpu > 0 ? cpu / gpu : 0;
  st.frag = std::make_unique<GpuFragModel>(TypicalShapes(std::move(counts), options_.popularity));
  GpuFragModel& frag = *st.frag;
  Policy policy = policy_;
  uint64_t seed = options_.seed;

  // ---- Device choosers ----
  session.AddDeviceChooserFn(
      [&frag, &session, policy, seed](const Task& t, const Node& n) -> std::optional<DeviceChoice> {
        GpuTaskShape m = ShapeOf(t);
        if (m.num_gpu == 0) return std::nullopt;
        GpuNodeState s = frag.StateOf(n);
        DeviceChoice c;
        if (m.gpu_milli >= 1000) {
          auto devs = Exclusive(s, m.num_gpu);
          if (!devs) return DeviceChoice{false, {}};
          c.devices = std::move(*devs);
          return c;
        }
        int pick = -1;
        if (policy == Policy::kRandom) {
          uint64_t h = Mix(seed ^ Mix(static_cast<uint64_t>(session.IndexOf(t)) * 1315423911ULL +
                                      static_cast<uint64_t>(session.IndexOf(n))));
          int seen = 0;
          for (size_t i = 0; i < s.gpu_left.size(); ++i) {
            if (s.gpu_left[i] < m.gpu_milli) continue;
            ++seen;
            h = Mix(h);
            if (h % static_cast<uint64_t>(seen) == 0) pick = static_cast<int>(i);
          }
        } else if (policy == Policy::kFgd || policy == Policy::kFgdPlus) {
          double before = frag.Frag(s);
          double best = 0;
          for (size_t i = 0; i < s.gpu_left.size(); ++i) {
            if (s.gpu_left[i] < m.gpu_milli) continue;
            GpuNodeState after = s;
            after.cpu_left -= m.cpu_milli;
            after.gpu_left[i] -= m.gpu_milli;
            double delta = before - frag.Frag(after);
            double score =
                policy == Policy::kFgd ? std::floor(Sigmoid(delta / 1000) * kMaxScore) : delta;
            if (pick < 0 || score > best) {
              pick = static_cast<int>(i);
              best = score;
            }
          }
        } else {
          pick = BestFitDevice(s, m.gpu_milli);
        }
        if (pick < 0) return DeviceChoice{false, {}};
        c.devices = Share(pick, m.gpu_milli);
        return c;
      });

  // ---- Node order ----
  double cpu_per_gpu = st.cpu_per_gpu;
  session.AddNodeOrderFn([&frag, &session, policy, cpu_per_gpu](const Task& t,
                                                                const Node& n) -> double {
    GpuTaskShape m = ShapeOf(t);
    switch (policy) {
      case Policy::kRandom:
        return 0;
      case Policy::kBestFit: {
        GpuNodeState s = frag.StateOf(n);
        double free_cpu = static_cast<double>(s.cpu_left - m.cpu_milli);
        double free_gpu = static_cast<double>(s.TotalGpuLeft() - int64_t{m.num_gpu} * m.gpu_milli);
        double v = free_cpu / kMaxSpecCpu * 0.5 + free_gpu / kMaxSpecGpu * 0.5;
        return static_cast<double>(static_cast<int64_t>((1.0 - v) * kMaxScore));
      }
      case Policy::kDotProd: {
        GpuNodeState s = frag.StateOf(n);
        if (s.cpu_left < m.cpu_milli) return 0;
        double dot = static_cast<double>(s.cpu_left) / kMaxSpecCpu * m.cpu_milli / kMaxSpecCpu +
                     static_cast<double>(s.TotalGpuLeft()) / kMaxSpecGpu *
                         (int64_t{m.num_gpu} * m.gpu_milli) / kMaxSpecGpu;
        double score = 1 - dot / 2;
        return static_cast<double>(static_cast<int64_t>(kMaxScore * score));
      }
      case Policy::kGpuPacking: {
        if (m.num_gpu == 0) return 0;
        GpuNodeState s = frag.StateOf(n);
        int free = 0;
        for (int32_t g : s.gpu_left) free += g == 1000;
        if (free == static_cast<int>(s.gpu_left.size())) {
          return static_cast<double>(std::max<int64_t>(kMaxScore / 3 - free, free));
        }
        std::vector<int> order(s.gpu_left.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
        std::stable_sort(order.begin(), order.end(),
                         [&](int a, int b) { return s.gpu_left[a] < s.gpu_left[b]; });
        int req = m.num_gpu, free_used = 0;
        int64_t free_ratio = 0;
        for (int i : order) {
          if (req == 0) break;
          if (m.gpu_milli <= s.gpu_left[i]) {
            --req;
            free_used += s.gpu_left[i] == 1000;
            free_ratio += int64_t{s.gpu_left[i]} * 100 / 1000;
          }
        }
        if (req != 0) return 0;
        if (free_used > 0) {
          return static_cast<double>(std::max<int64_t>(kMaxScore / 2 - free_used, kMaxScore / 3));
        }
        return static_cast<double>(std::max<int64_t>(kMaxScore - free_ratio / 10, kMaxScore / 2));
      }
      case Policy::kGpuClustering: {
        if (m.num_gpu == 0) return 0;
        auto tag = [](const GpuTaskShape& x) { return x.gpu_milli < 1000 ? 0 : x.num_gpu; };
        int mine = tag(m);
        std::map<int, int> tags;
        for (TaskIdx ti : n.tasks) {
          GpuTaskShape o = ShapeOf(session.task(ti));
          if (o.num_gpu > 0) ++tags[tag(o)];
        }
        GpuNodeState s = frag.StateOf(n);
        int64_t base = kMaxScore / 4 * (kMaxSpecGpu - s.TotalGpuLeft()) / kMaxSpecGpu;
        if (tags.count(mine)) return static_cast<double>(base + (tags.size() == 1 ? 75 : 50));
        return static_cast<double>(base + (tags.empty() ? 25 : 0));
      }
      case Policy::kFgd:
      case Policy::kFgdPlus: {
        GpuNodeState s = frag.StateOf(n);
        double before = frag.Frag(s);
        double best = -1e300;
        bool any = false;
        if (m.num_gpu == 1 && m.gpu_milli < 1000) {
          for (size_t i = 0; i < s.gpu_left.size(); ++i) {
            if (s.gpu_left[i] < m.gpu_milli) continue;
            GpuNodeState after = s;
            after.cpu_left -= m.cpu_milli;
            after.gpu_left[i] -= m.gpu_milli;
            best = std::max(best, before - frag.Frag(after));
            any = true;
          }
        } else if (auto after = Sub(s, m)) {
          best = before - frag.Frag(*after);
          any = true;
        }
        if (!any) return 0;
        double score = std::floor(Sigmoid(best / 1000) * kMaxScore);
        if (policy == Policy::kFgd || cpu_per_gpu <= 0) return score;
        // fgdplus: FGD's integer score, ties broken towards the node whose free CPU and free
        // GPU come closer to the workload's ratio (see the header). The fraction stays in
        // (0, 1), so it only orders nodes of equal FGD score.
        double gpu_before = static_cast<double>(s.TotalGpuLeft());
        double gpu_after = gpu_before - static_cast<double>(int64_t{m.num_gpu} * m.gpu_milli);
        double skew_before = static_cast<double>(s.cpu_left) / cpu_per_gpu - gpu_before;
        double skew_after = static_cast<double>(s.cpu_left - m.cpu_milli) / cpu_per_gpu - gpu_after;
        // Rounded to whole milli-GPU so that equal gains (every node skewed beyond the task's
        // own skew gains the same) stay ties for the placer's node order, not rounding noise.
        double gain = std::round(std::abs(skew_before) - std::abs(skew_after));
        return score + 0.5 + 0.49 * gain / (std::abs(gain) + 10000);
      }
    }
    return 0;
  });
}

}  // namespace etna::sched
