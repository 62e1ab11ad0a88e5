// Test helpers for admission: a fake ObjectLookup holding Queues and QueueBindings, YAML to
// JSON conversion (as Kubernetes reads manifests), ResourceInfo for each served kind, and
// matchers over FieldErrors. Test-only; not thread-safe.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "api/admission/admission.h"

namespace etna::api::admission::testing {

using Json = nlohmann::json;

inline Json YamlToJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      Json o = Json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = YamlToJson(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      Json a = Json::array();
      for (const auto& v : n) a.push_back(YamlToJson(v));
      return a;
    }
    case YAML::NodeType::Scalar: {
      std::string s = n.Scalar();
      if (n.Tag() == "!") return s;  // quoted
      if (s == "true" || s == "True") return true;
      if (s == "false" || s == "False") return false;
      if (s == "null" || s == "~") return nullptr;
      try {
        size_t pos = 0;
        long long v = std::stoll(s, &pos);
        if (pos == s.size()) return v;
        double d = std::stod(s, &pos);
        if (pos == s.size()) return d;
      } catch (...) {
      }
      return s;
    }
    default:
      return nullptr;
  }
}

inline std::vector<Json> LoadYamlFile(const std::string& path) {
  std::vector<Json> out;
  for (const YAML::Node& doc : YAML::LoadAllFromFile(path)) {
    if (doc.IsNull()) continue;
    out.push_back(YamlToJson(doc));
  }
  return out;
}

inline std::vector<Json> LoadYaml(const std::string& text) {
  std::vector<Json> out;
  for (const YAML::Node& doc : YAML::LoadAll(text)) {
    if (!doc.IsNull()) out.push_back(YamlToJson(doc));
  }
  return out;
}

inline resources::ResourceInfo Info(const std::string& group, const std::string& version,
                                    const std::string& kind, const std::string& plural,
                                    bool namespaced) {
  resources::ResourceInfo i;
  i.group = group;
  i.version = version;
  i.kind = kind;
  i.plural = plural;
  i.namespaced = namespaced;
  return i;
}

// The served kinds by apiVersion and kind; nullopt for kinds we do not serve.
inline std::optional<resources::ResourceInfo> InfoFor(const std::string& api_version,
                                                      const std::string& kind) {
  struct E {
    const char* av;
    const char* kind;
    const char* plural;
    bool ns;
  };
  static const E kTable[] = {
      {"v1", "Pod", "pods", true},
      {"v1", "Namespace", "namespaces", false},
      {"v1", "Node", "nodes", false},
      {"v1", "Event", "events", true},
      {"v1", "ConfigMap", "configmaps", true},
      {"v1", "Secret", "secrets", true},
      {"v1", "Service", "services", true},
      {"coordination.k8s.io/v1", "Lease", "leases", true},
      {"scheduling.k8s.io/v1", "PriorityClass", "priorityclasses", false},
      {"apps/v1", "Deployment", "deployments", true},
      {"apps/v1", "ReplicaSet", "replicasets", true},
      {"apps/v1", "DaemonSet", "daemonsets", true},
      {"autoscaling/v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", true},
      {"keda.sh/v1alpha1", "ScaledObject", "scaledobjects", true},
      {"batch.volcano.sh/v1alpha1", "Job", "jobs", true},
      {"batch.volcano.sh/v1alpha1", "CronJob", "cronjobs", true},
      {"batch/v1", "Job", "jobs", true},
      {"batch/v1", "CronJob", "cronjobs", true},
      {"scheduling.volcano.sh/v1beta1", "Queue", "queues", false},
      {"scheduling.volcano.sh/v1beta1", "PodGroup", "podgroups", true},
      {"scheduling.volcano.sh/v1beta1", "QueueBinding", "queuebindings", false},
      {"volcano.sh/v1beta1", "QueueBinding", "queuebindings", false},
      {"bus.volcano.sh/v1alpha1", "Command", "commands", true},
      {"topology.volcano.sh/v1alpha1", "HyperNode", "hypernodes", false},
      {"flow.volcano.sh/v1alpha1", "JobTemplate", "jobtemplates", true},
      {"flow.volcano.sh/v1alpha1", "JobFlow", "jobflows", true},
  };
  for (const E& e : kTable) {
    if (api_version != e.av || kind != e.kind) continue;
    std::string av = e.av;
    size_t slash = av.find('/');
    std::string group = slash == std::string::npos ? "" : av.substr(0, slash);
    std::string version = slash == std::string::npos ? av : av.substr(slash + 1);
    return Info(group, version, e.kind, e.plural, e.ns);
  }
  return std::nullopt;
}

inline resources::ResourceInfo InfoOf(const std::string& api_version, const std::string& kind) {
  auto i = InfoFor(api_version, kind);
  EXPECT_TRUE(i.has_value()) << api_version << " " << kind;
  return i.value_or(resources::ResourceInfo{});
}

// Queues by name, QueueBindings and any other object added with AddObject (by plural,
// namespace and name); everything else is NotFound.
class FakeLookup : public ObjectLookup {
 public:
  FakeLookup() {
    AddQueue("default", "Open");
    AddQueue("closed", "Closed");
    // Closed by the user (spec.state) before the queue controller caught up (status Open).
    AddQueue("closing", "Open");
    queues_["closing"]["spec"]["state"] = "Closing";
  }
  void AddQueue(const std::string& name, const std::string& status_state,
                const std::string& parent = "") {
    Json q = {{"apiVersion", "scheduling.volcano.sh/v1beta1"},
              {"kind", "Queue"},
              {"metadata", {{"name", name}}},
              {"spec", {{"weight", 1}}},
              {"status", {{"state", status_state}}}};
    if (!parent.empty()) q["spec"]["parent"] = parent;
    queues_[name] = q;
  }
  // A Queue as written (a seed manifest's), by its metadata.name.
  void PutQueue(const Json& q) { queues_[q["metadata"]["name"].get<std::string>()] = q; }
  Json& QueueObject(const std::string& name) { return queues_.at(name); }
  void AddBinding(const Json& b) { bindings_.push_back(b); }
  // A PriorityClass, ConfigMap, ... : `plural` as the registry names it ("priorityclasses").
  void AddObject(const std::string& plural, const std::string& ns, const Json& object) {
    others_[plural][ns + "/" + object["metadata"]["name"].get<std::string>()] = object;
  }

  Result<Json> Get(const resources::ResourceInfo& info, const std::string& ns,
                   const std::string& name) override {
    if (info.kind == "Queue" && info.plural == "queues") {
      auto it = queues_.find(name);
      if (it != queues_.end()) return it->second;
    } else if (auto kind = others_.find(info.plural); kind != others_.end()) {
      auto it = kind->second.find(ns + "/" + name);
      if (it != kind->second.end()) return it->second;
    }
    return Status::NotFound(fmt::format("{} \"{}\" not found", info.plural, name));
  }
  Result<std::vector<Json>> List(const resources::ResourceInfo& info,
                                 const std::string& ns) override {
    (void)ns;
    std::vector<Json> out;
    if (info.kind == "Queue") {
      for (const auto& [n, q] : queues_) out.push_back(q);
    } else if (info.kind == "QueueBinding") {
      out = bindings_;
    } else if (auto kind = others_.find(info.plural); kind != others_.end()) {
      for (const auto& [key, object] : kind->second) {
        if (key.rfind(ns + "/", 0) == 0) out.push_back(object);
      }
    }
    return out;
  }

 private:
  std::map<std::string, Json> queues_;
  std::vector<Json> bindings_;
  std::map<std::string, std::map<std::string, Json>> others_;  // plural -> "ns/name" -> object
};

inline std::string Describe(const std::vector<FieldError>& errs) {
  std::string s;
  for (const auto& e : errs) s += "\n  " + e.field + " [" + e.reason + "] " + e.message;
  return s.empty() ? " (none)" : s;
}

inline const FieldError* FindError(const std::vector<FieldError>& errs, const std::string& field) {
  for (const auto& e : errs) {
    if (e.field == field) return &e;
  }
  return nullptr;
}

// Checks one row of an admission table, case `name`: `errs` is empty when `field` is "", else
// has an error at `field` with `reason` whose message contains `message`.
inline void ExpectOutcome(const std::vector<FieldError>& errs, const std::string& name,
                          const std::string& field, const std::string& reason,
                          const std::string& message) {
  if (field.empty()) {
    EXPECT_TRUE(errs.empty()) << name << Describe(errs);
    return;
  }
  const FieldError* e = FindError(errs, field);
  ASSERT_NE(e, nullptr) << name << ": no error at " << field << Describe(errs);
  EXPECT_EQ(e->reason, reason) << name;
  EXPECT_NE(e->message.find(message), std::string::npos)
      << name << ": \"" << e->message << "\" lacks \"" << message << "\"";
}

// A Volcano Job task of `replicas` pods asking for a GPU (requests and limits).
inline Json Task(const std::string& name, int replicas) {
  return {{"name", name},
          {"replicas", replicas},
          {"template",
           {{"spec",
             {{"containers",
               {{{"name", "main"},
                 {"image", "busybox"},
                 {"resources",
                  {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}},
                   {"limits", {{"cpu", "2"}, {"memory", "1Gi"}, {"nvidia.com/gpu", "1"}}}}}}}}}}}}};
}

}  // namespace etna::api::admission::testing
