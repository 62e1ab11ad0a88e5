#include "sched/plugins/binpack.h"

#include <fmt/format.h>

#include <set>
#include <string>

#include "sched/framework/session.h"

namespace etna::sched {
namespace {

Status NonNegative(const std::string& key, int64_t v) {
  if (v >= 0) return Status::Ok();
  return Status::InvalidArgument(fmt::format("argument {}: must be >= 0", key));
}

}  // namespace

Result<std::unique_ptr<Plugin>> BinpackPlugin::Create(PluginBuildContext& ctx) {
  Arguments& a = ctx.arguments;
  Weights w;
  int64_t cpu = 1, memory = 1;
  ETNA_RETURN_IF_ERROR(a.GetInt("binpack.weight", &w.weight));
  ETNA_RETURN_IF_ERROR(NonNegative("binpack.weight", w.weight));
  ETNA_RETURN_IF_ERROR(a.GetInt("binpack.cpu", &cpu));
  ETNA_RETURN_IF_ERROR(NonNegative("binpack.cpu", cpu));
  ETNA_RETURN_IF_ERROR(a.GetInt("binpack.memory", &memory));
  ETNA_RETURN_IF_ERROR(NonNegative("binpack.memory", memory));
  w.resources = {{kCpu, cpu}, {kMemory, memory}};
  std::string list;
  ETNA_RETURN_IF_ERROR(a.GetString("binpack.resources", &list));
  std::set<std::string> listed;
  for (const auto& name : SplitCommaList(list)) {
    auto id = ResourceNames::Global().Intern(name);
    if (!id.ok()) return id.status().WithContext("argument binpack.resources");
    std::string key = "binpack.resources." + name;
    int64_t weight = 1;
    ETNA_RETURN_IF_ERROR(a.GetInt(key, &weight));
    ETNA_RETURN_IF_ERROR(NonNegative(key, weight));
    listed.insert(key);
    bool replaced = false;
    for (auto& [r, rw] : w.resources) {
      if (r == *id) rw = weight, replaced = true;
    }
    if (!replaced) w.resources.emplace_back(*id, weight);
  }
  for (const auto& key : a.KeysWithPrefix("binpack.resources.")) {
    if (!listed.count(key)) {
      return Status::InvalidArgument(
          fmt::format("argument {}: its resource is not listed in binpack.resources", key));
    }
  }
  return std::unique_ptr<Plugin>(new BinpackPlugin(std::move(w)));
}

double BinpackPlugin::Score(const Weights& w, const Task& t, const Node& n) {
  double score = 0;
  int64_t weight_sum = 0;
  for (const auto& [r, rw] : w.resources) {
    int64_t request = t.request.Get(r);
    if (request == 0) continue;
    int64_t alloc = n.allocatable.Get(r);
    if (alloc > 0 && rw > 0) {
      int64_t used = n.used.Get(r) + request;
      if (used > alloc) return 0;
      score += static_cast<double>(used) * static_cast<double>(rw) / static_cast<double>(alloc);
    }
    weight_sum += rw;
  }
  if (weight_sum > 0) score /= static_cast<double>(weight_sum);
  return score * 100.0 * static_cast<double>(w.weight);
}

void BinpackPlugin::OnSessionOpen(Session& s) {
  if (w_.weight == 0) return;
  s.AddNodeOrderFn([this](const Task& t, const Node& n) { return Score(w_, t, n); });
}

}  // namespace etna::sched
