#include "gpu/mig_catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

namespace etna::gpu {
namespace {

// The seven GI profiles in NVIDIA's order (1g, 1g+me, 1g on two memory slices, 2g, 3g, 4g,
// 7g), named by their memory in GB.
GpuModelSpec MakeSpec(std::string model, int64_t memory_mib, int gb_1, int gb_2, int gb_4,
                      int gb_8) {
  GpuModelSpec s{std::move(model), memory_mib, {}};
  auto add = [&](std::string name, int32_t id, int compute, int memory, int max,
                 std::vector<int> starts, bool me) {
    s.profiles.push_back({std::move(name), id, compute, memory, max, std::move(starts),
                          memory_mib * memory / kMemorySlices, me});
  };
  add(fmt::format("1g.{}gb", gb_1), 19, 1, 1, 7, {0, 1, 2, 3, 4, 5, 6}, false);
  add(fmt::format("1g.{}gb+me", gb_1), 20, 1, 1, 1, {0, 1, 2, 3, 4, 5, 6}, true);
  add(fmt::format("1g.{}gb", gb_2), 15, 1, 2, 4, {0, 2, 4, 6}, false);
  add(fmt::format("2g.{}gb", gb_2), 14, 2, 2, 3, {0, 2, 4}, false);
  add(fmt::format("3g.{}gb", gb_4), 9, 3, 4, 2, {0, 4}, false);
  add(fmt::format("4g.{}gb", gb_4), 5, 4, 4, 1, {0}, false);
  add(fmt::format("7g.{}gb", gb_8), 0, 7, 8, 1, {0}, false);
  return s;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Places instances (sorted largest first) on free memory slices by backtracking.
bool Place(const std::vector<const MigProfile*>& p, const std::vector<size_t>& order, size_t k,
           uint32_t occupied, std::vector<int>* starts) {
  if (k == order.size()) return true;
  const MigProfile& prof = *p[order[k]];
  for (int start : prof.starts) {
    uint32_t mask = ((1u << prof.memory_slices) - 1) << start;
    if (start + prof.memory_slices > kMemorySlices || (occupied & mask)) continue;
    (*starts)[order[k]] = start;
    if (Place(p, order, k + 1, occupied | mask, starts)) return true;
  }
  return false;
}

}  // namespace

const std::vector<GpuModelSpec>& GpuModels() {
  static const std::vector<GpuModelSpec>* models = new std::vector<GpuModelSpec>{
      MakeSpec("A100-40GB", 40 * 1024, 5, 10, 20, 40),
      MakeSpec("A100-80GB", 80 * 1024, 10, 20, 40, 80),
      MakeSpec("H100-80GB", 80 * 1024, 10, 20, 40, 80),
      MakeSpec("H200-141GB", 141 * 1024, 18, 35, 71, 141),
  };
  return *models;
}

const GpuModelSpec* FindGpuModel(std::string_view model) {
  std::string m = Upper(model);
  const char* canonical = nullptr;
  if (m.find("A100") != std::string::npos) {
    canonical = m.find("80G") != std::string::npos ? "A100-80GB" : "A100-40GB";
  } else if (m.find("H100") != std::string::npos) {
    // H100 NVL / 94GB have other profile sizes and are not modelled.
    if (m.find("NVL") != std::string::npos || m.find("94G") != std::string::npos) return nullptr;
    canonical = "H100-80GB";
  } else if (m.find("H200") != std::string::npos) {
    canonical = "H200-141GB";
  }
  if (!canonical) return nullptr;
  for (const auto& s : GpuModels()) {
    if (s.model == canonical) return &s;
  }
  return nullptr;
}

const MigProfile* FindProfile(const GpuModelSpec& spec, std::string_view profile) {
  for (const auto& p : spec.profiles) {
    if (p.name == profile) return &p;
  }
  return nullptr;
}

Result<std::vector<int>> ValidateMigLayout(const GpuModelSpec& spec,
                                           const std::vector<std::string>& profiles) {
  std::vector<const MigProfile*> p;
  std::map<std::string, int> count;
  int compute = 0, media = 0;
  for (const auto& name : profiles) {
    const MigProfile* prof = FindProfile(spec, name);
    if (!prof) {
      return Status::InvalidArgument(
          fmt::format("MIG profile {} does not exist on {}", name, spec.model));
    }
    if (++count[name] > prof->max_instances) {
      return Status::InvalidArgument(fmt::format("at most {} instances of {} fit on one {}",
                                                 prof->max_instances, name, spec.model));
    }
    compute += prof->compute_slices;
    media += prof->media_extensions;
    p.push_back(prof);
  }
  if (p.size() > static_cast<size_t>(kComputeSlices)) {
    return Status::InvalidArgument(
        fmt::format("{} MIG instances on one GPU; at most {}", p.size(), kComputeSlices));
  }
  if (media > 1) {
    return Status::InvalidArgument("at most one +me MIG instance fits on one GPU");
  }
  if (compute > kComputeSlices) {
    return Status::InvalidArgument(
        fmt::format("MIG layout needs {} SM slices; a GPU has {}", compute, kComputeSlices));
  }
  std::vector<size_t> order(p.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p[a]->memory_slices > p[b]->memory_slices; });
  std::vector<int> starts(p.size(), -1);
  if (!Place(p, order, 0, 0, &starts)) {
    return Status::InvalidArgument(
        fmt::format("MIG layout [{}] does not fit the 8 memory slices of a {} at legal placements",
                    fmt::join(profiles, ", "), spec.model));
  }
  return starts;
}

Result<std::vector<MigSlot>> LayOutMig(std::string_view model,
                                       const std::vector<std::string>& profiles) {
  const GpuModelSpec* spec = FindGpuModel(model);
  if (!spec) return Status::InvalidArgument(fmt::format("GPU model {} has no MIG profiles", model));
  ETNA_RETURN_IF_ERROR(ValidateMigLayout(*spec, profiles).status());
  std::vector<MigSlot> out;
  for (size_t i = 0; i < profiles.size(); ++i) {
    out.push_back({profiles[i], static_cast<int32_t>(i + 1)});
  }
  return out;
}

std::string MigResourceName(std::string_view profile) {
  return std::string(kMigResourcePrefix) + std::string(profile);
}

}  // namespace etna::gpu
