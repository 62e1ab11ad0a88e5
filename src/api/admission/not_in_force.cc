// NotInForce: the kinds etna serves and stores but runs no controller for yet, so that a client
// is told at write time instead of reading "created" as "in force" (docs/seed-fields.md).
#include <fmt/format.h>

#include "api/admission/admission.h"

namespace etna::api::admission {

std::vector<std::string> NotInForce(const resources::ResourceInfo& info) {
  struct Entry {
    const char* group;
    const char* kind;
    const char* missing;
  };
  static const Entry kStoredOnly[] = {
      {"autoscaling", "HorizontalPodAutoscaler", "nothing scales its target"},
  };
  std::vector<std::string> warnings;
  for (const Entry& e : kStoredOnly) {
    if (info.group == e.group && info.kind == e.kind) {
      warnings.push_back(fmt::format("etna stores this {} but runs no {} controller yet: {}",
                                     e.kind, e.kind, e.missing));
    }
  }
  return warnings;
}

}  // namespace etna::api::admission
