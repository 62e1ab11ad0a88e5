// Admission of Volcano's flow.volcano.sh kinds. A JobTemplate's spec is a Job's spec, checked as
// a new Job's is (ValidateJobTemplateSpec). A JobFlow is checked as Volcano's jobflow webhook and
// CRD check it: jobRetainPolicy retain or delete; every flow named (unique, a valid JobTemplate
// name); every dependsOn target a flow of the same JobFlow; no dependency cycle. Volcano's
// controller acts on neither dependsOn.probe nor patch, so they are refused by name rather than
// accepted and ignored. Whether the named JobTemplates exist is not checked (as Volcano): the
// controller waits for them.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "api/admission/kinds.h"

namespace etna::api::admission::internal {

namespace {

const std::vector<std::string> kRetainPolicies = {"retain", "delete"};

// One flow as admission reads it: its name and the flows it depends on, in dependsOn.targets'
// order ("" where a target is not a name: reported).
struct FlowNode {
  std::string name;
  std::vector<std::string> targets;
};

// Reads spec.flows[i]: the name, the targets, and refuses the fields no one acts on.
FlowNode ReadFlow(const Json& flow, const std::string& p, Errors& errs) {
  FlowNode node;
  if (!flow.is_object()) {
    errs.Invalid(p, flow, "must be an object");
    return node;
  }
  node.name = GetString(flow, "name", p, errs).value_or("");
  if (node.name.empty()) {
    errs.Required(Child(p, "name"), "the name of the JobTemplate this flow runs");
  } else if (std::string e = DNS1123SubdomainError(node.name); !e.empty()) {
    errs.Invalid(Child(p, "name"), node.name, e);
  }
  if (Field(flow, "patch")) {
    errs.Forbidden(Child(p, "patch"),
                   "not supported: the Job is made from the JobTemplate's spec as it is "
                   "(Volcano's jobflow controller does not apply a patch either)");
  }
  const Json* depends_on = GetObject(flow, "dependsOn", p, errs);
  if (!depends_on) return node;
  std::string dp = Child(p, "dependsOn");
  if (Field(*depends_on, "probe")) {
    errs.Forbidden(Child(dp, "probe"),
                   "not supported: a flow starts when the Job of every target is Completed "
                   "(Volcano's jobflow controller does not act on probes either)");
  }
  const Json* targets = GetArray(*depends_on, "targets", dp, errs);
  if (!targets) return node;
  for (size_t j = 0; j < targets->size(); ++j) {
    const Json& t = (*targets)[j];
    if (t.is_string() && !t.get<std::string>().empty()) {
      node.targets.push_back(t.get<std::string>());
    } else if (t.is_string()) {
      errs.Required(Index(Child(dp, "targets"), j), "the name of a flow of this JobFlow");
      node.targets.emplace_back();
    } else {
      errs.Invalid(Index(Child(dp, "targets"), j), t, "must be a string");
      node.targets.emplace_back();  // keeps the indices of the others
    }
  }
  return node;
}

// Finds a dependency cycle by depth-first search; reports the first one at the target that
// closes it, with the cycle spelled out.
class CycleFinder {
 public:
  CycleFinder(const std::vector<FlowNode>& flows, const std::map<std::string, size_t>& index)
      : flows_(flows), index_(index), color_(flows.size(), kWhite) {}

  void Report(Errors& errs) {
    for (size_t i = 0; i < flows_.size() && !found_; ++i) {
      if (color_[i] == kWhite) Visit(i, errs);
    }
  }

 private:
  enum Color { kWhite, kOnPath, kDone };

  void Visit(size_t i, Errors& errs) {
    color_[i] = kOnPath;
    path_.push_back(i);
    for (size_t j = 0; j < flows_[i].targets.size() && !found_; ++j) {
      auto it = index_.find(flows_[i].targets[j]);
      if (it == index_.end()) continue;  // reported as undefined
      size_t t = it->second;
      if (color_[t] == kOnPath) {
        found_ = true;
        std::string cycle;
        for (auto k = std::find(path_.begin(), path_.end(), t); k != path_.end(); ++k) {
          cycle += flows_[*k].name + " -> ";
        }
        cycle += flows_[t].name;
        errs.Invalid(
            Index(fmt::format("spec.flows[{}].dependsOn.targets", i), j), flows_[i].targets[j],
            fmt::format("jobflow Flow is not DAG: the dependencies form a cycle ({})", cycle));
      } else if (color_[t] == kWhite) {
        Visit(t, errs);
      }
    }
    path_.pop_back();
    color_[i] = kDone;
  }

  const std::vector<FlowNode>& flows_;
  const std::map<std::string, size_t>& index_;
  std::vector<Color> color_;
  std::vector<size_t> path_;
  bool found_ = false;
};

}  // namespace

void AdmitJobTemplate(Context& c) {
  const Json* spec = Field(c.object, "spec");
  if (!spec) {
    c.errs.Required("spec", "a JobTemplate's spec is the spec of the Jobs made from it");
  } else if (!spec->is_object()) {
    c.errs.Invalid("spec", *spec, "must be an object");
  } else {
    ValidateJobTemplateSpec(*spec, c.errs);
  }
}

void AdmitJobFlow(Context& c) {
  Errors& errs = c.errs;
  const Json* spec = GetObject(c.object, "spec", "", errs);
  if (!spec) {
    if (!Field(c.object, "spec")) errs.Required("spec.flows", "a JobFlow runs its flows");
    return;
  }
  if (auto policy = GetString(*spec, "jobRetainPolicy", "spec", errs);
      policy &&
      std::find(kRetainPolicies.begin(), kRetainPolicies.end(), *policy) == kRetainPolicies.end()) {
    errs.NotSupported("spec.jobRetainPolicy", *policy, kRetainPolicies);
  }
  const Json* flows = GetArray(*spec, "flows", "spec", errs);
  if (!flows || flows->empty()) {
    if (!flows && Field(*spec, "flows")) return;  // not a list: reported
    errs.Required("spec.flows", "a JobFlow runs its flows");
    return;
  }
  std::vector<FlowNode> nodes;
  std::map<std::string, size_t> index;  // flow name -> its index
  for (size_t i = 0; i < flows->size(); ++i) {
    std::string p = Index("spec.flows", i);
    nodes.push_back(ReadFlow((*flows)[i], p, errs));
    const std::string& name = nodes.back().name;
    if (!name.empty() && !index.emplace(name, i).second) errs.Duplicate(Child(p, "name"), name);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (size_t j = 0; j < nodes[i].targets.size(); ++j) {
      const std::string& t = nodes[i].targets[j];
      if (!t.empty() && !index.count(t)) {
        errs.Invalid(Index(fmt::format("spec.flows[{}].dependsOn.targets", i), j), t,
                     "jobflow Flow is not DAG: vertex is not defined: no flow of this JobFlow "
                     "has this name");
      }
    }
  }
  CycleFinder(nodes, index).Report(errs);
}

}  // namespace etna::api::admission::internal
