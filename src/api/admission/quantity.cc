#include "api/admission/quantity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "common/resource.h"

namespace etna::api::admission::internal {

namespace {

std::string QuantityText(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

bool IsStandardContainerResource(const std::string& name) {
  return name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
         name.rfind("hugepages-", 0) == 0;
}

}  // namespace

bool IsByteResource(const std::string& name) {
  return name == "memory" || name == "storage" || name == "ephemeral-storage" ||
         name.rfind("hugepages-", 0) == 0 || name.rfind("requests.memory", 0) == 0 ||
         name.rfind("limits.memory", 0) == 0;
}

bool IsExtendedResource(const std::string& name) {
  size_t slash = name.find('/');
  if (slash == std::string::npos) return false;
  std::string_view domain(name.data(), slash);
  return domain != "kubernetes.io" && !domain.ends_with(".kubernetes.io");
}

std::optional<int64_t> ParseQuantityValue(const Json& value, const std::string& name,
                                          const std::string& path, bool whole_extended,
                                          Errors& errs) {
  if (!value.is_string() && !value.is_number()) {
    errs.Invalid(path, value, "must be a quantity (a string such as \"500m\" or \"16Gi\")");
    return std::nullopt;
  }
  std::string text = QuantityText(value);
  Json shown = text;
  ResourceUnit unit = IsByteResource(name) ? ResourceUnit::kUnit : ResourceUnit::kMilli;
  Result<int64_t> amount = ParseQuantity(text, unit);
  if (!amount.ok()) {
    errs.Invalid(path, shown,
                 fmt::format("quantities must match the regular expression "
                             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' ({})",
                             amount.status().message()));
    return std::nullopt;
  }
  if (*amount < 0) {
    errs.Invalid(path, shown, "must be greater than or equal to 0");
    return std::nullopt;
  }
  if (whole_extended && IsExtendedResource(name) && *amount % 1000 != 0) {
    errs.Invalid(path, shown, "must be an integer");
    return std::nullopt;
  }
  return *amount;
}

ResourceAmounts ValidateResourceList(const Json& list, const std::string& path, bool whole_extended,
                                     Errors& errs) {
  ResourceAmounts out;
  if (!list.is_object()) {
    errs.Invalid(path, list, "must be an object of resource name to quantity");
    return out;
  }
  for (const auto& [name, value] : list.items()) {
    std::string p = Key(path, name);
    if (std::string e = QualifiedNameError(name); !e.empty()) {
      errs.Invalid(p, name, e);
      continue;
    }
    if (auto a = ParseQuantityValue(value, name, p, whole_extended, errs)) out[name] = *a;
  }
  return out;
}

void CheckLessOrEqual(const ResourceAmounts& small, const Json& small_list,
                      const std::string& small_path, const ResourceAmounts& big,
                      const Json& big_list, const std::string& big_path, Errors& errs) {
  for (const auto& [name, amount] : small) {
    auto it = big.find(name);
    if (it == big.end() || amount <= it->second) continue;
    errs.Invalid(Key(small_path, name), QuantityText(small_list[name]),
                 fmt::format("must be less than or equal to {}[{}] of {}", big_path, name,
                             QuantityText(big_list[name])));
  }
}

void ValidateResourceRequirements(const Json& resources, const std::string& path, Errors& errs) {
  if (!resources.is_object()) {
    errs.Invalid(path, resources, "must be an object");
    return;
  }
  ResourceAmounts requests, limits;
  const Json* req = GetObject(resources, "requests", path, errs);
  const Json* lim = GetObject(resources, "limits", path, errs);
  for (auto [list, key, out] :
       {std::tuple{req, "requests", &requests}, std::tuple{lim, "limits", &limits}}) {
    if (!list) continue;
    std::string lpath = Child(path, key);
    for (const auto& [name, value] : list->items()) {
      std::string p = Key(lpath, name);
      if (!IsStandardContainerResource(name) && !IsExtendedResource(name)) {
        errs.Invalid(p, name, "must be a standard resource for containers");
        continue;
      }
      if (auto a = ParseQuantityValue(value, name, p, true, errs)) (*out)[name] = *a;
    }
  }
  for (const auto& [name, amount] : requests) {
    std::string p = Key(Child(path, "requests"), name);
    auto it = limits.find(name);
    if (IsExtendedResource(name)) {
      if (it == limits.end()) {
        errs.Forbidden(p, "Limit must be set for non overcommitable resources");
      } else if (it->second != amount) {
        errs.Invalid(
            p, QuantityText((*req)[name]),
            fmt::format("must be equal to {} limit of {}", name, QuantityText((*lim)[name])));
      }
    } else if (it != limits.end() && amount > it->second) {
      errs.Invalid(p, QuantityText((*req)[name]),
                   fmt::format("must be less than or equal to {} limit of {}", name,
                               QuantityText((*lim)[name])));
    }
  }
}

ResourceAmounts PodSpecRequest(const Json& pod_spec) {
  auto container_request = [](const Json& c) {
    ResourceAmounts out;
    Errors ignored;  // ValidateResourceRequirements reports bad quantities
    const Json* res = Field(c, "resources");
    for (const char* key : {"limits", "requests"}) {  // requests override limits
      const Json* list = res ? Field(*res, key) : nullptr;
      if (!list || !list->is_object()) continue;
      for (const auto& [name, value] : list->items()) {
        if (auto a = ParseQuantityValue(value, name, name, false, ignored)) out[name] = *a;
      }
    }
    return out;
  };
  ResourceAmounts sum;
  if (const Json* cs = Field(pod_spec, "containers"); cs && cs->is_array()) {
    for (const Json& c : *cs) {
      for (const auto& [name, amount] : container_request(c)) {
        if (__builtin_add_overflow(sum[name], amount, &sum[name])) sum[name] = INT64_MAX;
      }
    }
  }
  if (const Json* cs = Field(pod_spec, "initContainers"); cs && cs->is_array()) {
    for (const Json& c : *cs) {
      for (const auto& [name, amount] : container_request(c)) {
        sum[name] = std::max(sum[name], amount);
      }
    }
  }
  return sum;
}

}  // namespace etna::api::admission::internal
