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

bool ObjectView::HasFinalizer(std::string_view finalizer) const {
  for (const Json& f : Array(*object_, {"metadata", "finalizers"})) {
    if (f.is_string() && f.get_ref<const std::string&>() == finalizer) return true;
  }
  return false;
}

}  // namespace etna::api::types
