#include "api/server/request_info.h"

#include <vector>

namespace etna::api::server {
namespace {

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string_view::npos) next = path.size();
    if (next > pos) out.emplace_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return out;
}

std::string VerbFor(const net::http::Request& request, const RequestInfo& info) {
  const std::string& m = request.method;
  bool collection = info.name.empty();
  if (m == "GET" || m == "HEAD") {
    if (!collection) return "get";
    auto watch = ParseBool(request.Query("watch"));
    return watch.value_or(false) ? "watch" : "list";
  }
  if (m == "POST") return "create";
  if (m == "PUT") return "update";
  if (m == "PATCH") return "patch";
  if (m == "DELETE") return collection ? "deletecollection" : "delete";
  return "";
}

}  // namespace

std::optional<RequestInfo> ParseRequestInfo(const net::http::Request& request) {
  std::vector<std::string> seg = Segments(request.path);
  RequestInfo info;
  size_t i = 0;
  if (seg.size() >= 3 && seg[0] == "api") {
    info.version = seg[1];
    i = 2;
  } else if (seg.size() >= 4 && seg[0] == "apis") {
    info.group = seg[1];
    info.version = seg[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  std::vector<std::string> rest(seg.begin() + i, seg.end());
  // /namespaces/<ns>/<plural>... unless it is the namespace's own subresource.
  if (rest.size() >= 3 && rest[0] == "namespaces" && info.group.empty() &&
      !(rest.size() == 3 && (rest[2] == "status" || rest[2] == "finalize"))) {
    info.ns = rest[1];
    info.namespace_in_path = true;
    rest.erase(rest.begin(), rest.begin() + 2);
  } else if (rest.size() >= 3 && rest[0] == "namespaces" && !info.group.empty()) {
    info.ns = rest[1];
    info.namespace_in_path = true;
    rest.erase(rest.begin(), rest.begin() + 2);
  }
  // A proxy subresource carries the rest of the path: .../nodes/<name>/proxy/<path...>.
  if (rest.size() > 3 && rest[2] == "proxy") {
    for (size_t k = 3; k < rest.size(); ++k) {
      info.subpath += (k > 3 ? "/" : "") + rest[k];
    }
    rest.resize(3);
  }
  if (rest.empty() || rest.size() > 3) return std::nullopt;
  info.plural = rest[0];
  if (rest.size() >= 2) info.name = rest[1];
  if (rest.size() == 3) info.subresource = rest[2];
  info.verb = VerbFor(request, info);
  if (info.verb.empty()) return std::nullopt;
  return info;
}

}  // namespace etna::api::server
