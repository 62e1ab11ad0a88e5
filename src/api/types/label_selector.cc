#include "api/types/label_selector.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <vector>

namespace etna::api::types {

bool SelectorMatches(const Json& selector, const Json* labels) {
  auto label = [&](const std::string& k) -> const Json* {
    return labels ? Find(*labels, {k}) : nullptr;
  };
  if (const Json* ml = Find(selector, {"matchLabels"}); ml && ml->is_object()) {
    for (const auto& [k, v] : ml->items()) {
      const Json* l = label(k);
      if (!l || *l != v) return false;
    }
  }
  if (const Json* me = Find(selector, {"matchExpressions"}); me && me->is_array()) {
    for (const Json& req : *me) {
      const Json* k = Find(req, {"key"});
      const Json* op = Find(req, {"operator"});
      if (!k || !k->is_string() || !op || !op->is_string()) return false;
      const Json* l = label(k->get<std::string>());
      bool in = false;
      if (const Json* vs = Find(req, {"values"}); vs && vs->is_array() && l) {
        for (const Json& v : *vs) in = in || v == *l;
      }
      std::string o = op->get<std::string>();
      if ((o == "In" && !in) || (o == "NotIn" && in) || (o == "Exists" && !l) ||
          (o == "DoesNotExist" && l)) {
        return false;
      }
    }
  }
  return true;
}

std::string FormatLabelSelector(const Json* selector) {
  if (selector == nullptr || !selector->is_object()) return "<none>";
  std::vector<std::string> parts;
  if (const Json* labels = Find(*selector, {"matchLabels"}); labels && labels->is_object()) {
    std::map<std::string, std::string> sorted;
    for (const auto& [k, v] : labels->items()) {
      sorted[k] = v.is_string() ? v.get<std::string>() : "";
    }
    for (const auto& [k, v] : sorted) parts.push_back(k + "=" + v);
  }
  for (const Json& e : Array(*selector, {"matchExpressions"})) {
    const std::string key = String(e, {"key"});
    const std::string op = String(e, {"operator"});
    std::vector<std::string> values;
    for (const Json& v : Array(e, {"values"})) {
      if (v.is_string()) values.push_back(v.get<std::string>());
    }
    if (op == "In") {
      parts.push_back(fmt::format("{} in ({})", key, fmt::join(values, ",")));
    } else if (op == "NotIn") {
      parts.push_back(fmt::format("{} notin ({})", key, fmt::join(values, ",")));
    } else if (op == "Exists") {
      parts.push_back(key);
    } else if (op == "DoesNotExist") {
      parts.push_back("!" + key);
    }
  }
  if (parts.empty()) return "<none>";
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace etna::api::types
