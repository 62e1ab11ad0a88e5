#include "api/server/object_rules.h"

#include <fmt/format.h>

#include "api/types/pod.h"

namespace etna::api::server::internal {

using nlohmann::json;
using resources::ResourceInfo;

ApiError CheckKind(const ResourceInfo& info, json& object, bool* ok) {
  *ok = false;
  if (!object.is_object()) return ApiError::BadRequest("the request body must be a JSON object");
  std::string api_version = object.value("apiVersion", "");
  std::string kind = object.value("kind", "");
  if (!api_version.empty() && api_version != info.GroupVersion()) {
    return ApiError::BadRequest(
        fmt::format("the API version in the data ({}) does not match the expected API version ({})",
                    api_version, info.GroupVersion()));
  }
  if (!kind.empty() && kind != info.kind) {
    return ApiError::BadRequest(fmt::format(
        "the kind in the data ({}) does not match the expected kind ({})", kind, info.kind));
  }
  object["apiVersion"] = info.GroupVersion();
  object["kind"] = info.kind;
  if (!object.contains("metadata") || !object["metadata"].is_object()) {
    if (object.contains("metadata") && !object["metadata"].is_null()) {
      return ApiError::BadRequest("metadata: must be an object");
    }
    object["metadata"] = json::object();
  }
  *ok = true;
  return {};
}

bool PodIsBoundAndLive(const ResourceInfo& info, const json& pod) {
  if (!info.group.empty() || info.kind != "Pod") return false;
  const types::Pod view(pod);
  return !view.node_name().empty() && !view.IsTerminal();
}

bool HasFinalizers(const json& object) {
  auto f = object.find("metadata");
  if (f == object.end()) return false;
  auto list = f->find("finalizers");
  return list != f->end() && list->is_array() && !list->empty();
}

}  // namespace etna::api::server::internal
