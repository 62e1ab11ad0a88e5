#include "sched/placement/gpu_frag.h"

#include <algorithm>
#include <functional>
#include <map>

namespace etna::sched {
namespace {

std::vector<std::string> SplitModels(const std::string& models) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= models.size()) {
    size_t bar = models.find('|', start);
    if (bar == std::string::npos) bar = models.size();
    if (bar > start) out.push_back(models.substr(start, bar - start));
    start = bar + 1;
  }
  return out;
}

// A deterministic order on shapes for equal popularity: the larger shape first.
bool ShapeLess(const GpuTaskShape& a, const GpuTaskShape& b) {
  if (a.cpu_milli != b.cpu_milli) return a.cpu_milli < b.cpu_milli;
  if (a.gpu_milli != b.gpu_milli) return a.gpu_milli < b.gpu_milli;
  if (a.num_gpu != b.num_gpu) return a.num_gpu < b.num_gpu;
  return a.models < b.models;
}

}  // namespace

std::vector<WeightedShape> TypicalShapes(std::vector<WeightedShape> counts, int popularity_pct) {
  // Merge duplicates.
  std::vector<WeightedShape> merged;
  for (auto& c : counts) {
    auto it = std::find_if(merged.begin(), merged.end(),
                           [&](const WeightedShape& m) { return m.shape == c.shape; });
    if (it == merged.end()) {
      merged.push_back(std::move(c));
    } else {
      it->weight += c.weight;
    }
  }
  std::sort(merged.begin(), merged.end(), [](const WeightedShape& a, const WeightedShape& b) {
    if (a.weight != b.weight) return a.weight > b.weight;
    return ShapeLess(b.shape, a.shape);
  });
  double total = 0;
  for (const auto& m : merged) total += m.weight;
  if (total <= 0) return {};
  double want = popularity_pct * total / 100.0;
  double cum = 0;
  size_t keep = 0;
  while (cum < want && keep < merged.size()) cum += merged[keep++].weight;
  merged.resize(keep);
  for (auto& m : merged) m.weight /= cum;
  return merged;
}

int64_t GpuNodeState::TotalGpuLeft() const {
  int64_t total = 0;
  for (int32_t g : gpu_left) total += g;
  return total;
}

GpuFragModel::GpuFragModel(std::vector<WeightedShape> typical) : typical_(std::move(typical)) {
  for (const auto& t : typical_) {
    std::vector<int32_t> ids;
    for (const auto& m : SplitModels(t.shape.models)) ids.push_back(ModelId(m));
    allowed_.push_back(std::move(ids));
  }
}

int32_t GpuFragModel::ModelId(const std::string& model) {
  if (model.empty()) return -1;
  auto [it, inserted] = model_ids_.try_emplace(model, static_cast<int32_t>(model_ids_.size()));
  return it->second;
}

bool GpuFragModel::Allowed(const std::string& models, int32_t model) {
  if (models.empty()) return true;
  auto it = parsed_models_.find(models);
  if (it == parsed_models_.end()) {
    std::vector<int32_t> ids;
    for (const auto& m : SplitModels(models)) ids.push_back(ModelId(m));
    it = parsed_models_.emplace(models, std::move(ids)).first;
  }
  return std::find(it->second.begin(), it->second.end(), model) != it->second.end();
}

GpuNodeState GpuFragModel::StateOf(const Node& n) {
  GpuNodeState s;
  s.model = ModelId(NodeGpuModel(n));
  s.cpu_left = n.allocatable.Get(kCpu) - n.used.Get(kCpu);
  s.gpu_left.reserve(n.gpus.size());
  for (const auto& g : n.gpus) {
    s.gpu_left.push_back(g.healthy && g.mig.empty() ? std::max(0, 1000 - g.used_milli) : 0);
  }
  return s;
}

size_t GpuFragModel::KeyHash::operator()(const Key& k) const {
  size_t h = std::hash<int64_t>()(k.cpu_left) * 31 + static_cast<size_t>(k.model + 1);
  h = h * 31 + static_cast<size_t>(k.n);
  for (int i = 0; i < k.n; ++i) h = h * 1000003 + static_cast<size_t>(k.gpu[i]);
  return h;
}

double GpuFragModel::Frag(const GpuNodeState& s) {
  if (s.gpu_left.size() > 16) return Compute(s);
  Key k{s.cpu_left, s.model, static_cast<int32_t>(s.gpu_left.size()), {}};
  for (size_t i = 0; i < s.gpu_left.size(); ++i) k.gpu[i] = static_cast<int16_t>(s.gpu_left[i]);
  // Fragmentation does not depend on device order.
  std::sort(k.gpu.begin(), k.gpu.begin() + k.n);
  auto it = memo_.find(k);
  if (it != memo_.end()) return it->second;
  double f = Compute(s);
  memo_.emplace(k, f);
  return f;
}

double GpuFragModel::Compute(const GpuNodeState& s) {
  int64_t total = s.TotalGpuLeft();
  if (total == 0) return 0;
  double frag = 0;
  for (size_t m = 0; m < typical_.size(); ++m) {
    const GpuTaskShape& shape = typical_[m].shape;
    double f = static_cast<double>(total);
    bool allowed = allowed_[m].empty() ||
                   std::find(allowed_[m].begin(), allowed_[m].end(), s.model) != allowed_[m].end();
    if (shape.gpu_milli > 0 && allowed) {
      int fitting = 0;
      int64_t slivers = 0;
      for (int32_t g : s.gpu_left) {
        if (g >= shape.gpu_milli) {
          ++fitting;
        } else {
          slivers += g;
        }
      }
      if (fitting >= shape.num_gpu && s.cpu_left >= shape.cpu_milli)
        f = static_cast<double>(slivers);
    }
    frag += typical_[m].weight * f;
  }
  return frag;
}

std::string AllowedGpuModels(const Task& t) {
  if (!t.spec) return {};
  for (const auto& term : t.spec->node_affinity_required) {
    for (const auto& req : term.match_expressions) {
      if (req.key != kGpuModelLabel || req.op != SelectorRequirement::Op::kIn) continue;
      std::string out;
      for (const auto& v : req.values) {
        if (!out.empty()) out += '|';
        out += v;
      }
      return out;
    }
  }
  return {};
}

std::string NodeGpuModel(const Node& n) {
  if (auto it = n.labels.find(kGpuModelLabel); it != n.labels.end()) return it->second;
  if (!n.gpus.empty()) return n.gpus[0].model;
  return {};
}

}  // namespace etna::sched
