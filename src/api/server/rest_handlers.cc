// ApiServer's handlers for one object: get, create, update, patch and delete.
#include <fmt/format.h>

#include "api/resources/table.h"
#include "api/server/api_server.h"
#include "api/server/handler_util.h"
#include "api/server/object_rules.h"
#include "api/server/request_info.h"

namespace etna::api::server {
namespace {

// Adds one Warning header per warning, as Kubernetes does ("299 - \"...\"").
net::http::Response WithWarnings(net::http::Response response, const FieldValidation& fields) {
  for (const auto& w : fields.warnings) {
    nlohmann::json quoted = w;
    response.headers.emplace_back("Warning", "299 - " + quoted.dump());
  }
  return response;
}

}  // namespace

using nlohmann::json;
using resources::ResourceInfo;

net::http::Response ApiServer::Get(const net::http::Request& request, const RequestInfo& ri,
                                   const ResourceInfo& info) {
  auto object = objects_.GetObject(info, ri.ns, ri.name);
  if (!object.ok()) return object.error().ToResponse();
  if (resources::WantsTable(request.Header("accept"))) {
    resources::TableOptions options;
    if (request.HasQuery("includeObject")) options.include_object = request.Query("includeObject");
    options.now = Now();
    return ObjectReply(200, resources::RenderTable(
                                info, {*object}, options,
                                object->value("/metadata/resourceVersion"_json_pointer, ""), ""));
  }
  return ObjectReply(200, *object);
}

net::http::Response ApiServer::Create(const net::http::Request& request, const RequestInfo& ri,
                                      const ResourceInfo& info, const UserInfo& user) {
  FieldValidation fields;
  auto body = DecodeWriteBody(request, options_.limits, &fields);
  if (!body.ok()) return body.error().ToResponse();
  internal::StampCreator(info, *body, user.name);
  const bool dry_run = request.Query("dryRun") == "All";
  return WithWarnings(
      Reply(objects_.Create(info, ri.ns, std::move(body).value(), &fields, dry_run), 201), fields);
}

net::http::Response ApiServer::Update(const net::http::Request& request, const RequestInfo& ri,
                                      const ResourceInfo& info) {
  FieldValidation fields;
  auto body = DecodeWriteBody(request, options_.limits, &fields);
  if (!body.ok()) return body.error().ToResponse();
  return WithWarnings(Reply(objects_.Update(info, ri.ns, ri.name, std::move(body).value(),
                                            ri.subresource == "status", &fields),
                            200),
                      fields);
}

net::http::Response ApiServer::PatchObject(const net::http::Request& request, const RequestInfo& ri,
                                           const ResourceInfo& info) {
  std::string content_type = request.Header("content-type");
  std::optional<PatchType> type = PatchTypeFor(content_type);
  if (!type) {
    return ApiError::UnsupportedMediaType(
               fmt::format("the body of the request was in an unknown format - accepted media "
                           "types include: application/json-patch+json, "
                           "application/merge-patch+json, application/apply-patch+yaml{}",
                           info.built_in ? ", application/strategic-merge-patch+json" : ""))
        .ToResponse();
  }
  FieldValidation fields;
  auto body = DecodeWriteBody(request, options_.limits, &fields);
  if (!body.ok()) return body.error().ToResponse();
  if (*type != PatchType::kJson && !body->is_object()) {
    return ApiError::BadRequest("the patch must be a JSON object").ToResponse();
  }
  if (*type == PatchType::kJson && !body->is_array()) {
    return ApiError::BadRequest("a JSON patch must be a list of operations").ToResponse();
  }
  return WithWarnings(
      Reply(objects_.Patch(info, ri.ns, ri.name, *type, *body, ri.subresource == "status", &fields),
            200),
      fields);
}

net::http::Response ApiServer::DeleteObject(const net::http::Request& request,
                                            const RequestInfo& ri, const ResourceInfo& info) {
  if (!ri.subresource.empty()) {
    return ApiError::MethodNotAllowed("DELETE is not allowed on a subresource").ToResponse();
  }
  auto options = DeleteOptionsOf(request, options_.limits);
  if (!options.ok()) return options.error().ToResponse();
  return Reply(objects_.Delete(info, ri.ns, ri.name, *options), 200);
}

}  // namespace etna::api::server
