#include "api/server/node_access.h"

#include "api/types/well_known.h"

namespace etna::api::server {
namespace {

using nlohmann::json;

bool NameIs(const json& ref, const char* key, std::string_view name) {
  return ref.is_object() && ref.contains(key) && ref[key].is_string() &&
         ref[key].get_ref<const std::string&>() == name;
}

// Whether a container's env or envFrom names it (`ref_key`: secretKeyRef / configMapKeyRef,
// `from_key`: secretRef / configMapRef).
bool ContainerReferences(const json& container, const char* ref_key, const char* from_key,
                         std::string_view name) {
  for (const json& e : container.value("env", json::array())) {
    if (e.contains("valueFrom") && NameIs(e["valueFrom"].value(ref_key, json()), "name", name)) {
      return true;
    }
  }
  for (const json& e : container.value("envFrom", json::array())) {
    if (NameIs(e.value(from_key, json()), "name", name)) return true;
  }
  return false;
}

}  // namespace

bool PodReferences(const json& pod, std::string_view resource, std::string_view name) {
  if (resource == "serviceaccounts") {
    return pod.value("/spec/serviceAccountName"_json_pointer, std::string("default")) == name;
  }
  const bool secret = resource == "secrets";
  if (!secret && resource != "configmaps") return false;
  const json& spec = pod.value("spec", json::object());
  if (secret) {
    for (const json& s : spec.value("imagePullSecrets", json::array())) {
      if (NameIs(s, "name", name)) return true;
    }
  }
  for (const json& v : spec.value("volumes", json::array())) {
    if (secret ? NameIs(v.value("secret", json()), "secretName", name)
               : NameIs(v.value("configMap", json()), "name", name)) {
      return true;
    }
    const json& projected = v.value("projected", json::object());
    for (const json& source : projected.value("sources", json::array())) {
      if (NameIs(source.value(secret ? "secret" : "configMap", json()), "name", name)) {
        return true;
      }
    }
  }
  for (const char* list : {"containers", "initContainers"}) {
    for (const json& c : spec.value(list, json::array())) {
      if (secret ? ContainerReferences(c, "secretKeyRef", "secretRef", name)
                 : ContainerReferences(c, "configMapKeyRef", "configMapRef", name)) {
        return true;
      }
    }
  }
  return false;
}

std::optional<std::string> JobPeersSelector(std::string_view label_selector) {
  std::string prefix = std::string(types::kJobNameLabel) + "=";
  if (label_selector.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view job = label_selector.substr(prefix.size());
  if (job.empty() || job.find_first_of(",!=() ") != std::string_view::npos) return std::nullopt;
  return std::string(job);
}

}  // namespace etna::api::server
