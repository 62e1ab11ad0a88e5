// ApiServer's scale subresource of Deployments and ReplicaSets (autoscaling/v1 Scale), as
// kube-apiserver serves it for `kubectl scale` and the HorizontalPodAutoscaler: GET reports
// spec.replicas, status.replicas and the selector as text; PUT and PATCH change spec.replicas
// (a PUT's metadata.resourceVersion is a precondition) and answer with the new Scale.
#include <fmt/format.h>

#include "api/codec/patch.h"
#include "api/server/api_server.h"
#include "api/server/handler_util.h"
#include "api/server/request_info.h"
#include "api/types/label_selector.h"

namespace etna::api::server {
namespace {

using nlohmann::json;
using resources::ResourceInfo;

constexpr int kMaxRetries = 8;

json ScaleOf(const json& object) {
  const json& meta = object["metadata"];
  json scale_meta = json::object();
  for (const char* f : {"name", "namespace", "uid", "resourceVersion", "creationTimestamp"}) {
    if (meta.contains(f)) scale_meta[f] = meta[f];
  }
  std::string selector =
      api::types::FormatLabelSelector(api::types::Find(object, {"spec", "selector"}));
  if (selector == "<none>") selector.clear();
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", scale_meta},
          {"spec", {{"replicas", api::types::Integer(object, {"spec", "replicas"}, 1)}}},
          {"status",
           {{"replicas", api::types::Integer(object, {"status", "replicas"})},
            {"selector", selector}}}};
}

ApiError InvalidReplicas(const ResourceInfo& info, const std::string& name, const json& value,
                         const std::string& why) {
  return ApiError::Invalid(info, name,
                           {{"spec.replicas", "FieldValueInvalid",
                             fmt::format("Invalid value: {}: {}", value.dump(), why)}});
}

}  // namespace

net::http::Response ApiServer::ScaleSubresource(const net::http::Request& request,
                                                const RequestInfo& ri, const ResourceInfo& info) {
  if (ri.verb == "get") {
    auto object = objects_.GetObject(info, ri.ns, ri.name);
    if (!object.ok()) return object.error().ToResponse();
    return ObjectReply(200, ScaleOf(*object));
  }
  if (ri.verb != "update" && ri.verb != "patch") {
    return ApiError::MethodNotAllowed(
               fmt::format("{}/scale supports GET, PUT and PATCH", info.plural))
        .ToResponse();
  }
  std::optional<PatchType> patch_type;
  if (ri.verb == "patch") {
    patch_type = PatchTypeFor(request.Header("content-type"));
    if (!patch_type || *patch_type == PatchType::kApply) {
      return ApiError::UnsupportedMediaType(
                 "the body of the request was in an unknown format - accepted media types "
                 "include: application/json-patch+json, application/merge-patch+json, "
                 "application/strategic-merge-patch+json")
          .ToResponse();
    }
  }
  auto body = DecodeRequestBody(request, options_.limits);
  if (!body.ok()) return body.error().ToResponse();
  for (int attempt = 0; attempt < kMaxRetries; ++attempt) {
    auto current = objects_.GetObject(info, ri.ns, ri.name);
    if (!current.ok()) return current.error().ToResponse();
    json scale = ScaleOf(*current);
    std::string precondition;
    if (patch_type) {
      Result<json> patched = *patch_type == PatchType::kJson ? codec::ApplyJsonPatch(scale, *body)
                             : *patch_type == PatchType::kStrategic
                                 ? codec::ApplyStrategicMergePatch(scale, *body)
                                 : codec::ApplyMergePatch(scale, *body);
      if (!patched.ok()) return ApiError::BadRequest(patched.status().message()).ToResponse();
      scale = std::move(patched).value();
    } else {
      if (!body->is_object()) return ApiError::BadRequest("the body must be a Scale").ToResponse();
      precondition = body->value("/metadata/resourceVersion"_json_pointer, std::string());
      scale = *body;
    }
    static const json kMissing;
    const json* replicas = api::types::Find(scale, {"spec", "replicas"});
    if (replicas == nullptr) replicas = &kMissing;
    if (!replicas->is_number_integer()) {
      return InvalidReplicas(info, ri.name, *replicas, "must be an integer").ToResponse();
    }
    if (replicas->get<int64_t>() < 0) {
      return InvalidReplicas(info, ri.name, *replicas, "must be greater than or equal to 0")
          .ToResponse();
    }
    json next = *current;
    next["spec"]["replicas"] = *replicas;
    if (!precondition.empty()) next["metadata"]["resourceVersion"] = precondition;
    auto written = objects_.Update(info, ri.ns, ri.name, std::move(next), false);
    if (written.ok()) return ObjectReply(200, ScaleOf(*written));
    // A conflict the client caused (its precondition) is its to see; one from a concurrent
    // writer between the read and the write is retried.
    if (written.error().code != 409 || !precondition.empty()) {
      return written.error().ToResponse();
    }
  }
  return ApiError::FromStatus(Status::Conflict(""), &info, ri.name).ToResponse();
}

}  // namespace etna::api::server
