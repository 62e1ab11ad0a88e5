#include "api/server/object_rules.h"

#include <fmt/format.h>

#include "api/types/pod.h"
#include "api/types/pod_run.h"

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

namespace {

bool IsWorkload(const ResourceInfo& info) {
  const std::string& g = info.group;
  const std::string& k = info.kind;
  if (g.empty()) return k == "Pod";
  if (g == "batch" || g == "batch.volcano.sh") return k == "Job" || k == "CronJob";
  if (g == "apps") {
    return k == "Deployment" || k == "ReplicaSet" || k == "StatefulSet" || k == "DaemonSet";
  }
  return g == "flow.volcano.sh" && k == "JobFlow";
}

void SetCreator(json& object, const std::string* user) {
  json& meta = object["metadata"];
  if (user != nullptr && !user->empty()) {
    meta["annotations"][types::kCreatedByAnnotation] = *user;
    return;
  }
  auto annotations = meta.find("annotations");
  if (annotations == meta.end() || !annotations->is_object()) return;
  annotations->erase(types::kCreatedByAnnotation);
  if (annotations->empty()) meta.erase(annotations);
}

}  // namespace

void StampCreator(const ResourceInfo& info, json& object, const std::string& user) {
  if (!IsWorkload(info) || !object.is_object() || !object["metadata"].is_object()) return;
  SetCreator(object, types::ObjectView(object).ControllerUid() ? nullptr : &user);
}

void KeepCreator(const ResourceInfo& info, const json& current, json& next) {
  if (!IsWorkload(info) || !next.is_object() || !next["metadata"].is_object()) return;
  const types::ObjectView was(current);
  std::string creator = was.Annotation(types::kCreatedByAnnotation);
  if (creator == types::ObjectView(next).Annotation(types::kCreatedByAnnotation)) return;
  SetCreator(next, was.HasAnnotation(types::kCreatedByAnnotation) ? &creator : nullptr);
}

bool HasFinalizers(const json& object) {
  auto f = object.find("metadata");
  if (f == object.end()) return false;
  auto list = f->find("finalizers");
  return list != f->end() && list->is_array() && !list->empty();
}

}  // namespace etna::api::server::internal
