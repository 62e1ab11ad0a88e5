#include "api/types/deployment.h"

#include <algorithm>
#include <charconv>

namespace etna::api::types {

int64_t ReplicatedView::revision() const {
  std::string text = Annotation(kRevisionAnnotation);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() ? value : 0;
}

bool Deployment::paused() const {
  const Json* p = Find(json(), {"spec", "paused"});
  return p != nullptr && p->is_boolean() && p->get<bool>();
}

int64_t ResolveIntOrPercent(const Json* value, int64_t total, bool round_up, int64_t fallback) {
  if (value == nullptr) return fallback;
  if (value->is_number_integer()) return value->get<int64_t>();
  if (!value->is_string()) return fallback;
  const std::string& text = value->get_ref<const std::string&>();
  if (text.size() < 2 || text.back() != '%') return fallback;
  int64_t percent = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, percent);
  if (ec != std::errc() || end != text.data() + text.size() - 1 || percent < 0) return fallback;
  int64_t scaled = percent * total;
  return round_up ? (scaled + 99) / 100 : scaled / 100;
}

Deployment::RollingLimits Deployment::rolling_limits() const {
  if (strategy() != "RollingUpdate") return {};
  const Json& rolling = Object(json(), {"spec", "strategy", "rollingUpdate"});
  int64_t desired = replicas();
  // Kubernetes' defaults: 25 % each.
  static const Json kQuarter = "25%";
  const Json* surge = Find(rolling, {"maxSurge"});
  const Json* unavailable = Find(rolling, {"maxUnavailable"});
  RollingLimits out;
  out.max_surge = ResolveIntOrPercent(surge ? surge : &kQuarter, desired, true, 0);
  out.max_unavailable =
      ResolveIntOrPercent(unavailable ? unavailable : &kQuarter, desired, false, 0);
  if (out.max_surge == 0 && out.max_unavailable == 0) out.max_unavailable = 1;
  out.max_unavailable = std::min(out.max_unavailable, desired);
  return out;
}

}  // namespace etna::api::types
