#include "agent/runtime/storage_limits.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <optional>

#include "common/resource.h"

namespace etna::agent::runtime {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::optional<int64_t> Bytes(const json& quantity) {
  if (!quantity.is_string()) return std::nullopt;
  auto parsed = ParseQuantity(quantity.get<std::string>(), ResourceUnit::kUnit);
  return parsed.ok() ? std::optional<int64_t>(*parsed) : std::nullopt;
}

// "2Gi", "512Mi", "64Ki" where exact, else bytes.
std::string BinaryQuantity(int64_t bytes) {
  for (auto [unit, suffix] :
       {std::pair<int64_t, const char*>{1LL << 30, "Gi"}, {1LL << 20, "Mi"}, {1LL << 10, "Ki"}}) {
    if (bytes >= unit && bytes % unit == 0) return fmt::format("{}{}", bytes / unit, suffix);
  }
  return std::to_string(bytes);
}

}  // namespace

int64_t DiskUsage(const std::string& path) {
  struct stat root {};
  if (lstat(path.c_str(), &root) != 0) return 0;
  int64_t total = root.st_blocks * 512;
  std::error_code ec;
  fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st {};
    if (lstat(it->path().c_str(), &st) != 0) continue;
    if (st.st_dev != root.st_dev) {  // a mount: the run's overlay root, a tmpfs volume
      it.disable_recursion_pending();
      continue;
    }
    total += st.st_blocks * 512;
  }
  return total;
}

std::string EphemeralStorageViolation(const json& pod, const std::string& pod_dir) {
  const json& spec = pod.value("spec", json::object());
  for (const json& v : spec.value("volumes", json::array())) {
    const json* dir = v.contains("emptyDir") ? &v["emptyDir"] : nullptr;
    if (!dir || !dir->is_object() || dir->value("medium", "") == "Memory") continue;
    auto limit = Bytes(dir->value("sizeLimit", json()));
    std::string name = v.value("name", "");
    if (limit && DiskUsage(pod_dir + "/volumes/" + name) > *limit) {
      return fmt::format("Usage of EmptyDir volume \"{}\" exceeds the limit \"{}\". ", name,
                         (*dir)["sizeLimit"].get<std::string>());
    }
  }
  std::optional<int64_t> pod_limit;
  for (const json& c : spec.value("containers", json::array())) {
    auto limit = Bytes(c.value("/resources/limits/ephemeral-storage"_json_pointer, json()));
    if (!limit) continue;
    pod_limit = pod_limit.value_or(0) + *limit;
    std::string name = c.value("name", "");
    if (DiskUsage(pod_dir + "/" + name) > *limit) {
      return fmt::format("Container {} exceeded its local ephemeral storage limit \"{}\". ", name,
                         c["resources"]["limits"]["ephemeral-storage"].get<std::string>());
    }
  }
  if (pod_limit && DiskUsage(pod_dir) > *pod_limit) {
    return fmt::format(
        "Pod ephemeral local storage usage exceeds the total limit of containers "
        "{}. ",
        BinaryQuantity(*pod_limit));
  }
  return "";
}

}  // namespace etna::agent::runtime
