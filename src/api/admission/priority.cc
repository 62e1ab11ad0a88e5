// Priority admission (Kubernetes' Priority plugin, plus the seed's priority.conf): resolves a
// Pod's priority through api/types/priority.h and refuses what cannot be resolved. The classes
// come from the PriorityClass objects and the seed ConfigMap volcano-system/
// volcano-scheduler-config key priority.conf, read through the ObjectLookup only when needed.
#include "api/types/priority.h"

#include <fmt/format.h>

#include "api/admission/kinds.h"
#include "api/types/fields.h"

namespace etna::api::admission::internal {

namespace {

class LookupClasses : public types::PriorityClassSource {
 public:
  explicit LookupClasses(ObjectLookup& lookup) : lookup_(lookup) {}

  std::optional<int32_t> ObjectValue(const std::string& name) override {
    Result<Json> got = lookup_.Get(PriorityClassResource(), "", name);
    if (!got.ok()) return std::nullopt;
    auto v = types::IntegerIfSet(*got, {"value"});
    if (!v) return std::nullopt;
    return static_cast<int32_t>(*v);
  }

  std::optional<std::pair<std::string, int32_t>> GlobalDefault() override {
    Result<std::vector<Json>> all = lookup_.List(PriorityClassResource(), "");
    if (!all.ok()) return std::nullopt;
    for (const Json& pc : *all) {
      auto v = types::IntegerIfSet(pc, {"value"});
      if (v && types::Bool(pc, {"globalDefault"})) {
        return std::pair{types::String(pc, {"metadata", "name"}), static_cast<int32_t>(*v)};
      }
    }
    return std::nullopt;
  }

  const types::PriorityConf& Conf() override {
    if (loaded_) return conf_;
    loaded_ = true;
    Result<Json> cm = lookup_.Get(ConfigMapResource(), types::kSeedSchedulerConfigNamespace,
                                  types::kSeedSchedulerConfigName);
    if (!cm.ok()) return conf_;
    std::string text = types::String(*cm, {"data", types::kPriorityConfKey});
    if (text.empty()) return conf_;
    auto parsed = types::ParsePriorityConf(text);
    if (parsed.ok()) {
      conf_ = std::move(parsed).value();
    } else {
      error_ = parsed.status().message();
    }
    return conf_;
  }

  // Why priority.conf gave no classes although the ConfigMap has it; empty otherwise.
  const std::string& conf_error() const { return error_; }

 private:
  ObjectLookup& lookup_;
  bool loaded_ = false;
  types::PriorityConf conf_;
  std::string error_;
};

// Refuses the request when `r` has a problem; a broken priority.conf is named in the message.
bool Refuse(Context& c, const types::ResolvedPriority& r, const LookupClasses& classes) {
  if (r.problem.empty()) return false;
  std::string message = r.problem;
  if (!classes.conf_error().empty()) {
    message +=
        fmt::format(" ({}/{} {} is not used: {})", types::kSeedSchedulerConfigNamespace,
                    types::kSeedSchedulerConfigName, types::kPriorityConfKey, classes.conf_error());
  }
  c.errs.ForbiddenRequest(message);
  return true;
}

std::optional<int64_t> OwnPriority(const Json& spec) {
  return types::IntegerIfSet(spec, {"priority"});
}

}  // namespace

void AdmitPodPriority(Context& c, Json& spec) {
  if (c.op == Operation::kUpdate) {
    // Set on create; an update that leaves it out keeps it (as Kubernetes does).
    const Json* old_priority = c.old ? types::Find(*c.old, {"spec", "priority"}) : nullptr;
    if (old_priority && !Field(spec, "priority")) spec["priority"] = *old_priority;
    return;
  }
  std::string class_name = types::String(spec, {"priorityClassName"});
  LookupClasses classes(c.lookup);
  types::ResolvedPriority r =
      types::ResolvePriority(class_name, OwnPriority(spec), classes, "pod spec");
  if (Refuse(c, r, classes)) return;
  spec["priority"] = r.value;
  if (class_name.empty() && !r.class_name.empty()) spec["priorityClassName"] = r.class_name;
}

void CheckGroupPriority(Context& c, const Json& spec, std::string_view what) {
  if (c.op == Operation::kUpdate && c.old) {
    const Json* old_spec = Field(*c.old, "spec");
    auto same = [&](const char* key) {
      const Json* a = Field(spec, key);
      const Json* b = old_spec ? Field(*old_spec, key) : nullptr;
      return (a == nullptr) == (b == nullptr) && (!a || *a == *b);
    };
    if (same("priorityClassName") && same("priority")) return;
  }
  std::string class_name = types::String(spec, {"priorityClassName"});
  if (class_name.empty()) return;  // the integer or the default: nothing to refuse
  LookupClasses classes(c.lookup);
  Refuse(c, types::ResolvePriority(class_name, OwnPriority(spec), classes, what), classes);
}

}  // namespace etna::api::admission::internal
