// Admission of the smaller Volcano kinds: Command (bus.volcano.sh), HyperNode
// (topology.volcano.sh) and the seed's QueueBinding (spec.queue + spec.selector).
#include <fmt/format.h>

#include <regex>

#include "api/admission/kinds.h"

namespace etna::api::admission::internal {

namespace {

const std::vector<std::string> kJobActions = {"AbortJob",   "RestartJob",   "RestartTask",
                                              "RestartPod", "TerminateJob", "CompleteJob",
                                              "ResumeJob",  "SyncJob",      "EnqueueJob"};
const std::vector<std::string> kQueueActions = {"OpenQueue", "CloseQueue", "SyncQueue"};

bool In(const std::vector<std::string>& set, const std::string& v) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

}  // namespace

void AdmitQueueBinding(Context& c) {
  Errors& errs = c.errs;
  const Json* spec = GetObject(c.object, "spec", "", errs);
  if (!spec) {
    errs.Required("spec");
    return;
  }
  auto queue = GetString(*spec, "queue", "spec", errs);
  if (!queue || queue->empty()) {
    errs.Required("spec.queue");
  } else if (std::string e = DNS1123SubdomainError(*queue); !e.empty()) {
    errs.Invalid("spec.queue", *queue, e);
  }
  const Json* selector = GetObject(*spec, "selector", "spec", errs);
  if (!selector) {
    errs.Required("spec.selector", "a QueueBinding routes the jobs its selector matches");
  } else {
    ValidateLabelSelector(*selector, "spec.selector", errs);
  }
}

void AdmitCommand(Context& c) {
  Errors& errs = c.errs;
  auto action = GetString(c.object, "action", "", errs);
  const Json* target = GetObject(c.object, "target", "", errs);
  std::string kind;
  if (!target) {
    errs.Required("target");
  } else {
    kind = GetString(*target, "kind", "target", errs).value_or("");
    auto name = GetString(*target, "name", "target", errs);
    if (kind != "Job" && kind != "Queue") errs.NotSupported("target.kind", kind, {"Job", "Queue"});
    if (!name || name->empty()) errs.Required("target.name");
  }
  if (!action || action->empty()) {
    errs.Required("action");
  } else if (kind == "Queue" && !In(kQueueActions, *action)) {
    errs.NotSupported("action", *action, kQueueActions);
  } else if (kind != "Queue" && !In(kJobActions, *action)) {
    errs.NotSupported("action", *action, kJobActions);
  }
}

void AdmitHyperNode(Context& c) {
  Errors& errs = c.errs;
  const Json* spec = GetObject(c.object, "spec", "", errs);
  if (!spec) {
    errs.Required("spec");
    return;
  }
  auto tier = GetInt(*spec, "tier", "spec", errs);
  if (!tier)
    errs.Required("spec.tier");
  else
    CheckNonNegative(*tier, "spec.tier", errs);
  const Json* members = GetArray(*spec, "members", "spec", errs);
  if (!members) return;
  for (size_t i = 0; i < members->size(); ++i) {
    std::string p = Index("spec.members", i);
    const Json& m = (*members)[i];
    auto type = GetString(m, "type", p, errs);
    if (!type) {
      errs.Required(Child(p, "type"));
    } else if (*type != "Node" && *type != "HyperNode") {
      errs.NotSupported(Child(p, "type"), *type, {"Node", "HyperNode"});
    }
    std::string sp = Child(p, "selector");
    const Json* sel = GetObject(m, "selector", p, errs);
    if (!sel) {
      errs.Required(sp);
      continue;
    }
    int n = 0;
    if (const Json* em = GetObject(*sel, "exactMatch", sp, errs)) {
      ++n;
      auto name = GetString(*em, "name", Child(sp, "exactMatch"), errs);
      if (!name || name->empty()) errs.Required(Child(sp, "exactMatch.name"));
    }
    if (const Json* rm = GetObject(*sel, "regexMatch", sp, errs)) {
      ++n;
      auto pattern = GetString(*rm, "pattern", Child(sp, "regexMatch"), errs);
      if (!pattern || pattern->empty()) {
        errs.Required(Child(sp, "regexMatch.pattern"));
      } else {
        try {
          std::regex re(*pattern);
        } catch (const std::regex_error& e) {
          errs.Invalid(Child(sp, "regexMatch.pattern"), *pattern,
                       fmt::format("invalid regular expression: {}", e.what()));
        }
      }
    }
    if (const Json* lm = GetObject(*sel, "labelMatch", sp, errs)) {
      ++n;
      ValidateLabelSelector(*lm, Child(sp, "labelMatch"), errs);
      if (type && *type != "Node") {
        errs.Forbidden(Child(sp, "labelMatch"), "labelMatch may only select members of type Node");
      }
    }
    if (n != 1) {
      errs.Invalid(sp, *sel, "exactly one of exactMatch, regexMatch or labelMatch must be set");
    }
  }
}

}  // namespace etna::api::admission::internal
