// A status condition as the HPA and KEDA controllers write them ({type, status, reason, message,
// lastTransitionTime}): the transition time is kept while the status stays what `old_status`
// (the object's current status) says, so a condition whose status did not change is not a new
// write.
// Thread-safety: a pure function.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "common/clock.h"

namespace etna::controllers {

nlohmann::json StatusCondition(const nlohmann::json& old_status, const std::string& type,
                               bool status, const std::string& reason, const std::string& message,
                               TimeMs now);

}  // namespace etna::controllers
