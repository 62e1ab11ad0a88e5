// Name validators (DNS-1123 labels and subdomains, qualified names, label values), object
// metadata and label selectors, as Kubernetes' apimachinery validation has them.
#include <fmt/format.h>

#include <cctype>

#include "api/admission/validation.h"

namespace etna::api::admission::internal {

namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

constexpr char kLabelRegex[] = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
constexpr size_t kAnnotationsLimit = 256 * 1024;

}  // namespace

std::string DNS1123LabelError(std::string_view s) {
  if (s.size() > 63) return "must be no more than 63 characters";
  bool ok = !s.empty() && IsLowerAlnum(s.front()) && IsLowerAlnum(s.back());
  for (char c : s) ok = ok && (IsLowerAlnum(c) || c == '-');
  if (ok) return "";
  return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
         "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
         "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
}

std::string DNS1123SubdomainError(std::string_view s) {
  if (s.size() > 253) return "must be no more than 253 characters";
  bool ok = !s.empty();
  size_t start = 0;
  while (ok && start <= s.size()) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string_view::npos ? s.npos : dot - start);
    ok = !part.empty() && IsLowerAlnum(part.front()) && IsLowerAlnum(part.back());
    for (char c : part) ok = ok && (IsLowerAlnum(c) || c == '-');
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (ok) return "";
  return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
         "'-' or '.', and must start and end with an alphanumeric character (e.g. "
         "'example.com', regex used for validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
}

namespace {

bool NamePartOk(std::string_view s) {
  if (s.empty() || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace

std::string QualifiedNameError(std::string_view s) {
  std::string_view name = s;
  size_t slash = s.find('/');
  if (slash != std::string_view::npos) {
    std::string_view prefix = s.substr(0, slash);
    name = s.substr(slash + 1);
    if (prefix.empty()) return "prefix part must be non-empty";
    std::string e = DNS1123SubdomainError(prefix);
    if (!e.empty()) return "prefix part " + e;
    if (name.find('/') != std::string_view::npos) {
      return "a qualified name must consist of an optional DNS subdomain prefix and a name "
             "separated by one '/'";
    }
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > 63) return "name part must be no more than 63 characters";
  if (!NamePartOk(name)) {
    return fmt::format(
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
        "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
        "used for validation is '{}')",
        "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  }
  return "";
}

std::string LabelValueError(std::string_view s) {
  if (s.empty()) return "";
  if (s.size() > 63) return "must be no more than 63 characters";
  if (NamePartOk(s)) return "";
  return fmt::format(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
      "'.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "
      "'my_value',  or '12345', regex used for validation is '{}')",
      kLabelRegex);
}

std::string PathSegmentNameError(std::string_view name) {
  if (name == "." || name == "..") return fmt::format("may not be '{}'", name);
  if (name.find('/') != std::string_view::npos) return "may not contain '/'";
  if (name.find('%') != std::string_view::npos) return "may not contain '%'";
  return "";
}

void ValidateMetadata(const Json& object, bool namespaced, NameRule rule, Errors& errs) {
  if (!object.is_object()) {
    errs.Invalid("", object, "must be an object");
    return;
  }
  const Json* meta = GetObject(object, "metadata", "", errs);
  Json empty = Json::object();
  if (!meta) meta = &empty;
  auto name = GetString(*meta, "name", "metadata", errs);
  if (!name || name->empty()) {
    errs.Required("metadata.name", "name or generateName is required");
  } else {
    std::string e = rule == NameRule::kLabel         ? DNS1123LabelError(*name)
                    : rule == NameRule::kPathSegment ? PathSegmentNameError(*name)
                                                     : DNS1123SubdomainError(*name);
    if (!e.empty()) errs.Invalid("metadata.name", *name, e);
  }
  auto ns = GetString(*meta, "namespace", "metadata", errs);
  if (namespaced) {
    if (!ns || ns->empty()) {
      errs.Required("metadata.namespace");
    } else if (std::string e = DNS1123LabelError(*ns); !e.empty()) {
      errs.Invalid("metadata.namespace", *ns, e);
    }
  } else if (ns && !ns->empty()) {
    errs.Forbidden("metadata.namespace", "not allowed on this type");
  }
  if (const Json* labels = GetObject(*meta, "labels", "metadata", errs)) {
    for (const auto& [k, v] : labels->items()) {
      std::string path = Key("metadata.labels", k);
      if (std::string e = QualifiedNameError(k); !e.empty()) errs.Invalid(path, k, e);
      if (!v.is_string()) {
        errs.Invalid(path, v, "must be a string");
      } else if (std::string e = LabelValueError(v.get_ref<const std::string&>()); !e.empty()) {
        errs.Invalid(path, v, e);
      }
    }
  }
  if (const Json* ann = GetObject(*meta, "annotations", "metadata", errs)) {
    size_t total = 0;
    for (const auto& [k, v] : ann->items()) {
      std::string path = Key("metadata.annotations", k);
      if (std::string e = QualifiedNameError(k); !e.empty()) errs.Invalid(path, k, e);
      if (!v.is_string()) {
        errs.Invalid(path, v, "must be a string");
      } else {
        total += k.size() + v.get_ref<const std::string&>().size();
      }
    }
    if (total > kAnnotationsLimit) errs.TooLong("metadata.annotations", kAnnotationsLimit);
  }
}

void ValidateLabelSelector(const Json& selector, const std::string& path, Errors& errs) {
  if (!selector.is_object()) {
    errs.Invalid(path, selector, "must be an object");
    return;
  }
  if (const Json* ml = GetObject(selector, "matchLabels", path, errs)) {
    for (const auto& [k, v] : ml->items()) {
      std::string p = Key(Child(path, "matchLabels"), k);
      if (std::string e = QualifiedNameError(k); !e.empty()) errs.Invalid(p, k, e);
      if (!v.is_string()) {
        errs.Invalid(p, v, "must be a string");
      } else if (std::string e = LabelValueError(v.get_ref<const std::string&>()); !e.empty()) {
        errs.Invalid(p, v, e);
      }
    }
  }
  if (const Json* me = GetArray(selector, "matchExpressions", path, errs)) {
    for (size_t i = 0; i < me->size(); ++i) {
      const Json& req = (*me)[i];
      std::string p = Index(Child(path, "matchExpressions"), i);
      auto key = GetString(req, "key", p, errs);
      if (!key) {
        errs.Required(Child(p, "key"));
      } else if (std::string e = QualifiedNameError(*key); !e.empty()) {
        errs.Invalid(Child(p, "key"), *key, e);
      }
      auto op = GetString(req, "operator", p, errs).value_or("");
      const Json* values = GetArray(req, "values", p, errs);
      size_t n = values ? values->size() : 0;
      if (op == "In" || op == "NotIn") {
        if (n == 0)
          errs.Required(Child(p, "values"), "must be specified when `operator` is 'In' or 'NotIn'");
      } else if (op == "Exists" || op == "DoesNotExist") {
        if (n != 0)
          errs.Forbidden(Child(p, "values"),
                         "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
      } else {
        errs.NotSupported(Child(p, "operator"), op, {"In", "NotIn", "Exists", "DoesNotExist"});
      }
    }
  }
}

}  // namespace etna::api::admission::internal
