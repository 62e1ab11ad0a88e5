#include "api/resources/discovery.h"

#include <string>
#include <utility>
#include <vector>

#include "api/resources/media_type.h"
#include "api/types/well_known.h"

namespace etna::api::resources {

namespace {

using nlohmann::json;

constexpr char kDiscoveryGroup[] = "apidiscovery.k8s.io";
constexpr char kDiscoveryAs[] = "APIGroupDiscoveryList";

// A subresource as discovery describes it.
struct SubresourceInfo {
  std::string name;
  std::string group;  // of the response kind
  std::string version;
  std::string kind;
  std::vector<std::string> verbs;
};

std::vector<SubresourceInfo> Subresources(const ResourceInfo& r) {
  std::vector<SubresourceInfo> out;
  if (r.has_status)
    out.push_back({"status", r.group, r.version, r.kind, {"get", "patch", "update"}});
  for (const std::string& sub : r.subresources) {
    if (sub == "log") {
      out.push_back({"log", r.group, r.version, r.kind, {"get"}});
    } else if (sub == "binding") {
      out.push_back({"binding", "", "v1", "Binding", {"create"}});
    } else if (sub == "eviction") {
      out.push_back({"eviction", "policy", "v1", "Eviction", {"create"}});
    } else if (sub == "exec") {
      out.push_back({"exec", "", "v1", "PodExecOptions", {"create", "get"}});
    } else if (sub == "attach") {
      out.push_back({"attach", "", "v1", "PodAttachOptions", {"create", "get"}});
    } else if (sub == "portforward") {
      out.push_back({"portforward", "", "v1", "PodPortForwardOptions", {"create", "get"}});
    } else if (sub == "proxy") {
      out.push_back({"proxy", "", "v1", r.kind + "ProxyOptions", {"get"}});
    } else {
      out.push_back({sub, r.group, r.version, r.kind, {"get"}});
    }
  }
  return out;
}

// The versions a group serves, in registry order.
std::vector<std::string> GroupVersions(const ResourceRegistry& registry, std::string_view group) {
  std::vector<std::string> versions;
  for (const ResourceInfo& r : registry.All()) {
    if (r.group != group) continue;
    bool seen = false;
    for (const std::string& v : versions) seen = seen || v == r.version;
    if (!seen) versions.push_back(r.version);
  }
  return versions;
}

json LegacyResource(const ResourceInfo& r) {
  json j = {{"name", r.plural},
            {"singularName", r.singular},
            {"namespaced", r.namespaced},
            {"kind", r.kind},
            {"verbs", r.verbs}};
  if (!r.short_names.empty()) j["shortNames"] = r.short_names;
  if (!r.categories.empty()) j["categories"] = r.categories;
  return j;
}

json LegacySubresource(const ResourceInfo& r, const SubresourceInfo& s) {
  json j = {{"name", r.plural + "/" + s.name},
            {"singularName", ""},
            {"namespaced", r.namespaced},
            {"kind", s.kind},
            {"verbs", s.verbs}};
  if (s.group != r.group || s.version != r.version) {
    j["group"] = s.group;
    j["version"] = s.version;
  }
  return j;
}

json ResponseKind(std::string_view group, std::string_view version, std::string_view kind) {
  return {{"group", group}, {"version", version}, {"kind", kind}};
}

json AggregatedResource(const ResourceInfo& r) {
  json j = {{"resource", r.plural},
            {"responseKind", ResponseKind(r.group, r.version, r.kind)},
            {"scope", r.namespaced ? "Namespaced" : "Cluster"},
            {"singularResource", r.singular},
            {"verbs", r.verbs}};
  if (!r.short_names.empty()) j["shortNames"] = r.short_names;
  if (!r.categories.empty()) j["categories"] = r.categories;
  json subs = json::array();
  for (const SubresourceInfo& s : Subresources(r)) {
    subs.push_back({{"subresource", s.name},
                    {"responseKind", ResponseKind(s.group, s.version, s.kind)},
                    {"verbs", s.verbs}});
  }
  if (!subs.empty()) j["subresources"] = std::move(subs);
  return j;
}

json AggregatedGroup(const ResourceRegistry& registry, const std::string& group) {
  json versions = json::array();
  for (const std::string& version : GroupVersions(registry, group)) {
    json resources = json::array();
    for (const ResourceInfo& r : registry.All()) {
      if (r.group == group && r.version == version) resources.push_back(AggregatedResource(r));
    }
    versions.push_back(
        {{"version", version}, {"resources", std::move(resources)}, {"freshness", "Current"}});
  }
  return {{"metadata", {{"name", group}}}, {"versions", std::move(versions)}};
}

}  // namespace

json VersionInfo() {
#if defined(__aarch64__)
  constexpr char kPlatform[] = "linux/arm64";
#else
  constexpr char kPlatform[] = "linux/amd64";
#endif
  // minor must stay within 27–33: the gcloud kubectl dispatcher execs kubectl.1.<minor>.
  return {{"major", "1"},
          {"minor", "32"},
          {"gitVersion", types::kKubernetesGitVersion},
          {"gitCommit", "0000000000000000000000000000000000000000"},
          {"gitTreeState", "clean"},
          {"buildDate", "2025-01-01T00:00:00Z"},
          {"goVersion", "go1.23.0"},
          {"compiler", "gc"},
          {"platform", kPlatform}};
}

json ApiVersions(std::string_view server_address) {
  return {{"kind", "APIVersions"},
          {"versions", {"v1"}},
          {"serverAddressByClientCIDRs",
           {{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}};
}

json ApiGroupList(const ResourceRegistry& registry) {
  json groups = json::array();
  for (const std::string& group : registry.Groups()) {
    json versions = json::array();
    for (const std::string& version : GroupVersions(registry, group)) {
      versions.push_back({{"groupVersion", group + "/" + version}, {"version", version}});
    }
    json preferred = versions.front();
    groups.push_back({{"name", group},
                      {"versions", std::move(versions)},
                      {"preferredVersion", std::move(preferred)}});
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(groups)}};
}

std::optional<json> ApiResourceList(const ResourceRegistry& registry, std::string_view group,
                                    std::string_view version) {
  json resources = json::array();
  for (const ResourceInfo& r : registry.All()) {
    if (r.group != group || r.version != version) continue;
    resources.push_back(LegacyResource(r));
    for (const SubresourceInfo& s : Subresources(r)) resources.push_back(LegacySubresource(r, s));
  }
  if (resources.empty()) return std::nullopt;
  json list = {{"kind", "APIResourceList"}};
  // A real apiserver omits apiVersion on /api/v1 and sends "v1" on /apis/<g>/<v>.
  if (!group.empty()) list["apiVersion"] = "v1";
  list["groupVersion"] =
      group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  list["resources"] = std::move(resources);
  return list;
}

std::string AggregatedDiscoveryVersion(std::string_view accept) {
  bool v2beta1 = false;
  for (const internal::MediaRange& range : internal::ParseAccept(accept)) {
    if (range.type != "application/json") continue;
    auto param = [&](const char* key) {
      auto it = range.params.find(key);
      return it == range.params.end() ? std::string() : it->second;
    };
    if (param("g") != kDiscoveryGroup || param("as") != kDiscoveryAs) continue;
    if (param("q") == "0") continue;
    if (param("v") == "v2") return "v2";
    if (param("v") == "v2beta1") v2beta1 = true;
  }
  return v2beta1 ? "v2beta1" : "";
}

json AggregatedDiscovery(const ResourceRegistry& registry, bool core, std::string_view version) {
  json items = json::array();
  if (core) {
    items.push_back(AggregatedGroup(registry, ""));
  } else {
    for (const std::string& group : registry.Groups()) {
      items.push_back(AggregatedGroup(registry, group));
    }
  }
  return {{"kind", "APIGroupDiscoveryList"},
          {"apiVersion", std::string(kDiscoveryGroup) + "/" + std::string(version)},
          {"metadata", json::object()},
          {"items", std::move(items)}};
}

std::string AggregatedDiscoveryContentType(std::string_view version) {
  return "application/json;g=" + std::string(kDiscoveryGroup) + ";v=" + std::string(version) +
         ";as=" + kDiscoveryAs;
}

}  // namespace etna::api::resources
