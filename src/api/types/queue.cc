#include "api/types/queue.h"

namespace etna::api::types {

bool Queue::AdmitsNamespace(const std::string& ns) const {
  const Json& allowed = Array(json(), {"spec", "allowedNamespaces"});
  if (allowed.empty()) return true;
  for (const Json& entry : allowed) {
    if (entry.is_string() && (entry == "*" || entry == ns)) return true;
  }
  return false;
}

Json Queue::Guarantee() const {
  const Json& guarantee = Object(json(), {"spec", "guarantee"});
  Json folded = Object(guarantee, {"resource"});
  for (const auto& [k, v] : guarantee.items()) {
    if (k == "resource") continue;
    folded[k.rfind("resource.", 0) == 0 ? k.substr(9) : k] = v;
  }
  return folded;
}

std::string Queue::State() const {
  std::string status = String(json(), {"status", "state"});
  std::string spec = String(json(), {"spec", "state"});
  bool closed_by_user = spec == "Closing" || spec == "Closed";
  if (closed_by_user && (status.empty() || status == "Open")) return spec;
  if (!status.empty()) return status;
  return spec.empty() ? "Open" : spec;
}

}  // namespace etna::api::types
