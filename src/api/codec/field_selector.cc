// Kubernetes field selectors (k8s.io/apimachinery/pkg/fields.ParseSelector) and matching.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "api/codec/compact_needles.h"
#include "api/codec/selectors.h"
#include "common/strings.h"

namespace etna::api::codec {
namespace {

// Splits on commas that are not escaped by a backslash; escapes are kept for UnescapeValue.
std::vector<std::string_view> SplitTerms(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  bool escaped = false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (s[i] == '\\') {
      escaped = true;
    } else if (s[i] == ',') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  out.push_back(s.substr(start));
  return out;
}

// fields.UnescapeValue: "\\", "\," and "\=" are the only escapes; a bare ',' or '=' is an error.
Result<std::string> Unescape(std::string_view v, std::string_view selector) {
  std::string out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    if (c == '\\') {
      if (i + 1 >= v.size() || (v[i + 1] != '\\' && v[i + 1] != ',' && v[i + 1] != '=')) {
        return Status::InvalidArgument(fmt::format(
            "invalid field selector \"{}\": invalid escape sequence in value \"{}\"", selector, v));
      }
      out.push_back(v[++i]);
    } else if (c == ',' || c == '=') {
      return Status::InvalidArgument(fmt::format(
          "invalid field selector \"{}\": unescaped '{}' in value \"{}\"", selector, c, v));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string FieldText(const nlohmann::json& object, std::string_view path) {
  const nlohmann::json* node = &object;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string part(path.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (!node->is_object()) return "";
    auto it = node->find(part);
    if (it == node->end()) return "";
    node = &*it;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (node->is_null()) return "";
  if (node->is_string()) return node->get<std::string>();
  return node->dump();
}

}  // namespace

Result<FieldSelector> FieldSelector::Parse(std::string_view text) {
  FieldSelector selector;
  for (std::string_view term : SplitTerms(text)) {
    if (Trim(term).empty()) continue;
    // The first "!=", "==" or "=" splits the term, as fields.splitTerm does.
    size_t i = 0;
    size_t op_len = 0;
    bool equals = true;
    for (; i < term.size(); ++i) {
      std::string_view rest = term.substr(i);
      if (rest.starts_with("!=")) {
        op_len = 2, equals = false;
        break;
      }
      if (rest.starts_with("==")) {
        op_len = 2;
        break;
      }
      if (rest.starts_with("=")) {
        op_len = 1;
        break;
      }
    }
    if (op_len == 0) {
      return Status::InvalidArgument(
          fmt::format("invalid field selector \"{}\": can't understand \"{}\"", text, term));
    }
    std::string_view field = Trim(term.substr(0, i));
    if (field.empty()) {
      return Status::InvalidArgument(
          fmt::format("invalid field selector \"{}\": \"{}\" has no field name", text, term));
    }
    ETNA_ASSIGN_OR_RETURN(std::string value, Unescape(term.substr(i + op_len), text));
    // The stored text lacks metadata.resourceVersion (spliced in when read): no needle for it.
    if (equals && !value.empty() && field != "metadata.resourceVersion") {
      size_t dot = field.rfind('.');
      std::string_view last = dot == std::string_view::npos ? field : field.substr(dot + 1);
      std::string key = QuotedAsStored(last) + ":";
      selector.needles_.push_back({key + QuotedAsStored(value), key + value});
    }
    selector.requirements_.push_back({std::string(field), equals, std::move(value)});
  }
  return selector;
}

bool FieldSelector::MayMatchCompact(std::string_view compact) const {
  return EveryTermHasANeedle(needles_, compact);
}

bool FieldSelector::Matches(const nlohmann::json& object) const {
  for (const Requirement& r : requirements_) {
    if ((FieldText(object, r.field) == r.value) != r.equals) return false;
  }
  return true;
}

}  // namespace etna::api::codec
