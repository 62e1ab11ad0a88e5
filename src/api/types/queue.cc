#include "api/types/queue.h"

namespace etna::api::types {

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
  std::string state = String(json(), {"status", "state"});
  return state.empty() ? String(json(), {"spec", "state"}, "Open") : state;
}

}  // namespace etna::api::types
