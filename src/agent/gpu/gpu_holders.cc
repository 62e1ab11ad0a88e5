#include "agent/gpu/gpu_holders.h"

#include <charconv>
#include <optional>
#include <string_view>

#include "client/well_known.h"

namespace etna::agent {
namespace {

using nlohmann::json;

std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    if (!part.empty()) out.push_back(part);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::optional<int64_t> ToInt(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

std::string Annotation(const json& pod, const char* key) {
  const json annotations = pod.value("/metadata/annotations"_json_pointer, json::object());
  auto it = annotations.find(key);
  return it != annotations.end() && it->is_string() ? it->get<std::string>() : "";
}

bool Holds(const json& pod) {
  if (!pod.is_object()) return false;
  std::string phase = pod.value("/status/phase"_json_pointer, std::string());
  return phase != "Succeeded" && phase != "Failed";
}

}  // namespace

GpuHolders GpuHoldersFromPods(const std::vector<json>& pods) {
  GpuHolders out;
  for (const json& pod : pods) {
    if (!Holds(pod)) continue;
    GpuHolder who;
    who.pod = pod.value("/metadata/name"_json_pointer, std::string());
    who.ns = pod.value("/metadata/namespace"_json_pointer, std::string());
    const json containers = pod.value("/spec/containers"_json_pointer, json::array());
    if (containers.is_array() && !containers.empty() && containers[0].is_object()) {
      who.container = containers[0].value("name", "");
    }
    std::string id_text = Annotation(pod, client::kGpuIdsAnnotation);
    std::string memory_text = Annotation(pod, client::kGpuMemoryMibAnnotation);
    std::vector<std::string_view> ids = SplitCommas(id_text);
    std::vector<std::string_view> memory = SplitCommas(memory_text);
    for (size_t i = 0; i < ids.size(); ++i) {
      auto index = ToInt(ids[i]);
      if (!index) continue;
      GpuHolder h = who;
      // One value for every device, or one per device in the order of the ids.
      if (!memory.empty()) {
        auto mib = ToInt(memory.size() == 1 ? memory[0] : (i < memory.size() ? memory[i] : ""));
        if (mib) h.memory_mib = *mib;
      }
      out[static_cast<int32_t>(*index)].push_back(std::move(h));
    }
    std::string mig_text = Annotation(pod, client::kMigInstancesAnnotation);
    for (std::string_view item : SplitCommas(mig_text)) {  // "<gpu index>:<profile>:<id>"
      size_t a = item.find(':'), b = item.rfind(':');
      if (a == std::string_view::npos || a == b) continue;
      auto index = ToInt(item.substr(0, a));
      auto instance = ToInt(item.substr(b + 1));
      if (!index || !instance) continue;
      GpuHolder h = who;
      h.mig_instance = static_cast<int32_t>(*instance);
      out[static_cast<int32_t>(*index)].push_back(std::move(h));
    }
  }
  return out;
}

}  // namespace etna::agent
