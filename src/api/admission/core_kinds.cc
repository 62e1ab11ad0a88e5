// Admission of the core/v1 and coordination kinds besides Pod: Node (taints, capacity),
// Event (type), ConfigMap and Secret (keys, sizes, base64), Lease (durations).
#include <fmt/format.h>

#include <set>

#include "api/admission/kinds.h"
#include "api/admission/quantity.h"
#include "common/base64.h"

namespace etna::api::admission::internal {

namespace {

constexpr size_t kMaxConfigSize = 1024 * 1024;
const std::vector<std::string> kTaintEffects = {"NoSchedule", "PreferNoSchedule", "NoExecute"};

std::string ConfigKeyError(const std::string& key) {
  if (key.empty() || key.size() > 253) return "must be 1 to 253 characters";
  if (key == "." || key == "..") return "must not be '.' or '..'";
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') {
      return "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
             "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
             "'[-._a-zA-Z0-9]+')";
    }
  }
  return "";
}

// Validates data-like maps: keys, string values, total size; `base64` for Secret data and
// ConfigMap binaryData.
size_t ValidateDataMap(const Json& obj, const char* key, bool base64, std::set<std::string>& keys,
                       Errors& errs) {
  const Json* data = GetObject(obj, key, "", errs);
  if (!data) return 0;
  size_t total = 0;
  for (const auto& [k, v] : data->items()) {
    std::string p = Key(key, k);
    if (std::string e = ConfigKeyError(k); !e.empty()) errs.Invalid(p, k, e);
    if (!keys.insert(k).second) errs.Duplicate(p, k);
    if (!v.is_string()) {
      errs.Invalid(p, v, "must be a string");
      continue;
    }
    const std::string& s = v.get_ref<const std::string&>();
    if (base64 && !Base64Decode(s)) errs.Invalid(p, "<value omitted>", "must be base64 encoded");
    total += s.size();
  }
  return total;
}

}  // namespace

void AdmitNode(Context& c) {
  Errors& errs = c.errs;
  const Json* spec = GetObject(c.object, "spec", "", errs);
  if (spec) {
    GetBool(*spec, "unschedulable", "spec", errs);
    if (const Json* taints = GetArray(*spec, "taints", "spec", errs)) {
      std::set<std::string> seen;
      for (size_t i = 0; i < taints->size(); ++i) {
        std::string p = Index("spec.taints", i);
        const Json& t = (*taints)[i];
        auto key = GetString(t, "key", p, errs);
        if (!key || key->empty()) {
          errs.Required(Child(p, "key"));
        } else if (std::string e = QualifiedNameError(*key); !e.empty()) {
          errs.Invalid(Child(p, "key"), *key, e);
        }
        auto effect = GetString(t, "effect", p, errs);
        if (!effect || effect->empty()) {
          errs.Required(Child(p, "effect"));
        } else if (std::find(kTaintEffects.begin(), kTaintEffects.end(), *effect) ==
                   kTaintEffects.end()) {
          errs.NotSupported(Child(p, "effect"), *effect, kTaintEffects);
        } else if (key && !seen.insert(*key + ":" + *effect).second) {
          errs.Duplicate(p, *key + ":" + *effect);
        }
        if (auto v = GetString(t, "value", p, errs); v) {
          if (std::string e = LabelValueError(*v); !e.empty())
            errs.Invalid(Child(p, "value"), *v, e);
        }
      }
    }
  }
  if (const Json* status = GetObject(c.object, "status", "", errs)) {
    for (const char* list : {"capacity", "allocatable"}) {
      if (const Json* l = GetObject(*status, list, "status", errs)) {
        ValidateResourceList(*l, Child("status", list), true, errs);
      }
    }
  }
}

void AdmitEvent(Context& c) {
  if (auto type = GetString(c.object, "type", "", c.errs);
      type && !type->empty() && *type != "Normal" && *type != "Warning") {
    c.errs.NotSupported("type", *type, {"Normal", "Warning"});
  }
  if (auto n = GetInt(c.object, "count", "", c.errs)) CheckNonNegative(*n, "count", c.errs);
  GetObject(c.object, "involvedObject", "", c.errs);
}

void AdmitConfigMap(Context& c) {
  std::set<std::string> keys;
  size_t total = ValidateDataMap(c.object, "data", false, keys, c.errs) +
                 ValidateDataMap(c.object, "binaryData", true, keys, c.errs);
  if (total > kMaxConfigSize) c.errs.TooLong("data", kMaxConfigSize);
  GetBool(c.object, "immutable", "", c.errs);
  if (c.op == Operation::kUpdate && c.old) {
    const Json* was = Field(*c.old, "immutable");
    if (was && *was == true) {
      for (const char* k : {"data", "binaryData", "immutable"}) {
        const Json* a = Field(c.object, k);
        const Json* b = Field(*c.old, k);
        if ((a == nullptr) != (b == nullptr) || (a && *a != *b)) {
          c.errs.Forbidden(k, "field is immutable when `immutable` is set");
        }
      }
    }
  }
}

void AdmitSecret(Context& c) {
  std::set<std::string> keys;
  size_t total = ValidateDataMap(c.object, "data", true, keys, c.errs);
  std::set<std::string> string_keys;
  total += ValidateDataMap(c.object, "stringData", false, string_keys, c.errs);
  if (total > kMaxConfigSize) c.errs.TooLong("data", kMaxConfigSize);
  // As the API server does: stringData is written into data (base64) and dropped.
  if (const Json* sd = Field(c.object, "stringData"); sd && sd->is_object() && c.errs.empty()) {
    if (!Field(c.object, "data")) c.object["data"] = Json::object();
    for (const auto& [k, v] : sd->items()) {
      if (v.is_string()) c.object["data"][k] = Base64Encode(v.get<std::string>());
    }
    c.object.erase("stringData");
  }
  SetDefault(c.object, "type", "Opaque");
  GetString(c.object, "type", "", c.errs);
  if (c.op == Operation::kUpdate && c.old) {
    const Json* was = Field(*c.old, "type");
    const Json* now = Field(c.object, "type");
    if (was && now && *was != *now) c.errs.Forbidden("type", "field is immutable");
  }
}

void AdmitLease(Context& c) {
  const Json* spec = GetObject(c.object, "spec", "", c.errs);
  if (!spec) return;
  if (auto d = GetInt(*spec, "leaseDurationSeconds", "spec", c.errs); d && *d <= 0) {
    c.errs.Invalid("spec.leaseDurationSeconds", *d, "must be greater than 0");
  }
  if (auto t = GetInt(*spec, "leaseTransitions", "spec", c.errs)) {
    CheckNonNegative(*t, "spec.leaseTransitions", c.errs);
  }
  GetString(*spec, "holderIdentity", "spec", c.errs);
}

}  // namespace etna::api::admission::internal
