#include "api/types/bound_devices.h"

#include <fmt/format.h>

#include <charconv>
#include <string_view>

#include "api/types/well_known.h"

namespace etna::api::types {

namespace {

std::vector<std::string> SplitCommas(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// A whole non-negative number, all of `s`.
bool ParseCount(std::string_view s, int64_t* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out >= 0;
}

std::string Get(const nlohmann::json& annotations, const char* key) {
  auto it = annotations.find(key);
  return it != annotations.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Value i of a list that has one value for every device or one per device.
Result<int64_t> PerDevice(const std::vector<std::string>& values, size_t i, const char* key) {
  if (values.empty()) return int64_t{0};
  const std::string& s =
      values.size() == 1 ? values[0] : (i < values.size() ? values[i] : std::string());
  int64_t n = 0;
  if (!ParseCount(s, &n)) {
    return Status::InvalidArgument(fmt::format("annotation {}: bad value '{}'", key, s));
  }
  return n;
}

}  // namespace

Result<BoundDevices> DecodeBoundDevices(const nlohmann::json& annotations) {
  BoundDevices out;
  if (!annotations.is_object()) return out;
  std::vector<std::string> ids = SplitCommas(Get(annotations, kGpuIdsAnnotation));
  std::vector<std::string> uuids = SplitCommas(Get(annotations, kGpuUuidsAnnotation));
  std::string memory_text = Get(annotations, kGpuMemoryMibAnnotation);
  std::string cores_text = Get(annotations, kGpuCoresPercentAnnotation);
  std::vector<std::string> memory = SplitCommas(memory_text), cores = SplitCommas(cores_text);
  bool share = !memory_text.empty() || !cores_text.empty();
  for (size_t i = 0; i < ids.size(); ++i) {
    int64_t index = 0;
    if (!ParseCount(ids[i], &index)) {
      return Status::InvalidArgument(
          fmt::format("annotation {}: bad device index '{}'", kGpuIdsAnnotation, ids[i]));
    }
    BoundGpu g;
    g.index = static_cast<int32_t>(index);
    if (i < uuids.size()) g.uuid = uuids[i];
    g.share = share;
    if (share) {
      ETNA_ASSIGN_OR_RETURN(g.memory_mib, PerDevice(memory, i, kGpuMemoryMibAnnotation));
      ETNA_ASSIGN_OR_RETURN(int64_t c, PerDevice(cores, i, kGpuCoresPercentAnnotation));
      g.cores_percent = static_cast<int32_t>(c);
    }
    out.gpus.push_back(std::move(g));
  }
  for (const std::string& item : SplitCommas(Get(annotations, kMigInstancesAnnotation))) {
    size_t a = item.find(':'), b = item.rfind(':');
    int64_t gpu = 0, id = 0;
    std::string_view text = item;
    if (a == std::string::npos || a == b || !ParseCount(text.substr(0, a), &gpu) ||
        !ParseCount(text.substr(b + 1), &id)) {
      return Status::InvalidArgument(
          fmt::format("annotation {}: bad instance '{}'", kMigInstancesAnnotation, item));
    }
    out.mig.push_back(
        {static_cast<int32_t>(gpu), item.substr(a + 1, b - a - 1), static_cast<int32_t>(id)});
  }
  return out;
}

}  // namespace etna::api::types
