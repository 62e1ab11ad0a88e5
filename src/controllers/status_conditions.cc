#include "controllers/status_conditions.h"

#include "api/types/fields.h"
#include "common/time.h"

namespace etna::controllers {

namespace types = etna::api::types;

nlohmann::json StatusCondition(const nlohmann::json& old_status, const std::string& type,
                               bool status, const std::string& reason, const std::string& message,
                               TimeMs now) {
  const std::string s = status ? "True" : "False";
  const nlohmann::json* old = types::FindCondition(old_status, {"conditions"}, type);
  std::string transition = old && types::String(*old, {"status"}) == s
                               ? types::String(*old, {"lastTransitionTime"})
                               : FormatRfc3339(now);
  return {{"type", type},
          {"status", s},
          {"lastTransitionTime", transition},
          {"reason", reason},
          {"message", message}};
}

}  // namespace etna::controllers
