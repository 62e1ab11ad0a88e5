#include "api/types/node.h"

namespace etna::api::types {

std::string Node::ReadyStatus() const {
  const Json* ready = FindCondition(json(), {"status", "conditions"}, "Ready");
  return ready != nullptr ? String(*ready, {"status"}) : std::string();
}

bool Node::HasTaint(std::string_view key) const {
  for (const Json& t : taints()) {
    if (String(t, {"key"}) == key) return true;
  }
  return false;
}

std::string Node::Address(std::string_view type) const {
  for (const Json& a : Array(json(), {"status", "addresses"})) {
    if (String(a, {"type"}) == type) return String(a, {"address"});
  }
  return {};
}

}  // namespace etna::api::types
