#include "api/types/podgroup.h"

namespace etna::api::types {

const Json* PodGroup::ConditionWithReason(std::string_view reason) const {
  for (const Json& c : conditions()) {
    if (String(c, {"reason"}) == reason) return &c;
  }
  return nullptr;
}

}  // namespace etna::api::types
