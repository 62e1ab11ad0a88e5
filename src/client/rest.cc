#include "client/rest.h"

#include <fmt/format.h>

#include "api/resources/registry.h"

namespace etna::client {

using nlohmann::json;

std::string Path(std::string_view resource, std::string_view ns, std::string_view name) {
  const api::resources::ResourceInfo* info =
      api::resources::ResourceRegistry::Default().FindByName(resource);
  if (info == nullptr) return fmt::format("/unknown-resource/{}", resource);
  std::string path = info->group.empty() ? std::string("/api/v1")
                                         : fmt::format("/apis/{}/{}", info->group, info->version);
  if (info->namespaced && !ns.empty()) path += fmt::format("/namespaces/{}", ns);
  path += "/" + info->plural;
  if (!name.empty()) path += fmt::format("/{}", name);
  return path;
}

Status StatusFromReply(int code, std::string_view body) {
  json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string message = doc.is_object() && doc.contains("message") && doc["message"].is_string()
                            ? doc["message"].get<std::string>()
                            : std::string(body.substr(0, 512));
  std::string reason = doc.is_object() ? doc.value("reason", "") : "";
  switch (code) {
    case 404:
      return Status::NotFound(message);
    case 409:
      return reason == "AlreadyExists" ? Status::AlreadyExists(message) : Status::Conflict(message);
    case 410:
      return Status::Gone(message);
    case 400:
    case 422:
      return Status::InvalidArgument(message);
    case 403:
    case 401:
      return Status::FailedPrecondition(fmt::format("HTTP {}: {}", code, message));
    default:
      return Status::Unavailable(fmt::format("HTTP {}: {}", code, message));
  }
}

Result<json> RestClient::Call(std::string_view method, const std::string& target, const json* body,
                              std::string_view content_type) {
  std::string text = body ? body->dump() : std::string();
  auto reply = transport_->Do(method, target, text, content_type);
  if (!reply.ok()) return reply.status();
  if (reply->status < 200 || reply->status >= 300) {
    return StatusFromReply(reply->status, reply->body);
  }
  json doc = json::parse(reply->body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status::Internal(fmt::format("{} {}: the reply is not JSON", method, target));
  }
  return doc;
}

Result<json> RestClient::Get(const std::string& path) { return Call("GET", path, nullptr); }

Result<std::vector<json>> RestClient::List(const std::string& path, const std::string& query) {
  auto doc = Call("GET", query.empty() ? path : path + "?" + query, nullptr);
  if (!doc.ok()) return doc.status();
  std::vector<json> items;
  if (auto it = doc->find("items"); it != doc->end() && it->is_array()) {
    for (json& item : *it) items.push_back(std::move(item));
  }
  return items;
}

Result<json> RestClient::Create(const std::string& collection_path, const json& object) {
  return Call("POST", collection_path, &object);
}

Result<json> RestClient::Update(const std::string& path, const json& object) {
  return Call("PUT", path, &object);
}

Result<json> RestClient::UpdateStatus(const std::string& path, const json& object) {
  return Call("PUT", path + "/status", &object);
}

Result<json> RestClient::MergePatch(const std::string& path, const json& patch,
                                    const std::string& subresource) {
  return Call("PATCH", subresource.empty() ? path : path + "/" + subresource, &patch,
              "application/merge-patch+json");
}

Status RestClient::Delete(const std::string& path, int grace_period_seconds,
                          const std::string& propagation) {
  json options = json::object();
  if (grace_period_seconds >= 0) options["gracePeriodSeconds"] = grace_period_seconds;
  if (!propagation.empty()) options["propagationPolicy"] = propagation;
  auto r = Call("DELETE", path, options.empty() ? nullptr : &options);
  return r.ok() ? Status::Ok() : r.status();
}

Status RestClient::Bind(const std::string& ns, const std::string& pod, const std::string& node,
                        const json& annotations) {
  json binding = {{"apiVersion", "v1"},
                  {"kind", "Binding"},
                  {"metadata", {{"name", pod}, {"namespace", ns}}},
                  {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
  if (!annotations.empty()) binding["metadata"]["annotations"] = annotations;
  auto r = Call("POST", Path("pods", ns, pod) + "/binding", &binding);
  return r.ok() ? Status::Ok() : r.status();
}

Status RestClient::Evict(const std::string& ns, const std::string& pod, int grace_period_seconds) {
  json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod}, {"namespace", ns}}}};
  if (grace_period_seconds >= 0) {
    eviction["deleteOptions"] = {{"gracePeriodSeconds", grace_period_seconds}};
  }
  auto r = Call("POST", Path("pods", ns, pod) + "/eviction", &eviction);
  return r.ok() ? Status::Ok() : r.status();
}

}  // namespace etna::client
