#include "api/types/object.h"

namespace etna::api::types {

std::string ObjectView::Key() const {
  std::string n = ns();
  return n.empty() ? name() : n + "/" + name();
}

std::optional<std::string> ObjectView::ControllerUid() const {
  std::optional<std::string> uid;
  for (const Json& ref : owner_references()) {
    if (Bool(ref, {"controller"})) uid = String(ref, {"uid"});
  }
  return uid;
}

std::string ObjectView::ControllerName(std::string_view kind) const {
  for (const Json& ref : owner_references()) {
    if (Bool(ref, {"controller"}))
      return String(ref, {"kind"}) == kind ? String(ref, {"name"}) : "";
  }
  return "";
}

bool ObjectView::HasOwnerOfKind(std::string_view kind) const {
  for (const Json& ref : owner_references()) {
    if (String(ref, {"kind"}) == kind) return true;
  }
  return false;
}

}  // namespace etna::api::types
