#include "cli/kit/jsonpath.h"

#include <fmt/format.h>

#include <charconv>

namespace etna::cli {

using nlohmann::json;

namespace {

// One step of a path: a key, an index (negative from the end) or every element/value.
struct Step {
  enum Kind { kKey, kIndex, kAll } kind = kKey;
  std::string key;
  long index = 0;
};

Status Bad(std::string_view path, std::string_view why) {
  return Status::InvalidArgument(fmt::format("error: jsonpath \"{}\": {}", path, why));
}

Result<std::vector<Step>> Parse(std::string_view path) {
  std::string_view p = path;
  if (!p.empty() && p.front() == '{') {
    if (p.back() != '}') return Bad(path, "unclosed {");
    p = p.substr(1, p.size() - 2);
  }
  std::vector<Step> steps;
  size_t i = 0;
  if (!p.empty() && p[0] == '$') ++i;  // "$.a" is ".a"
  while (i < p.size()) {
    if (p[i] == '.') {
      ++i;
      if (i < p.size() && p[i] == '*') {
        steps.push_back({Step::kAll});
        ++i;
      }
      continue;
    }
    if (p[i] == '[') {
      size_t close = p.find(']', i);
      if (close == std::string_view::npos) return Bad(path, "unclosed [");
      std::string_view inside = p.substr(i + 1, close - i - 1);
      i = close + 1;
      if (inside == "*") {
        steps.push_back({Step::kAll});
      } else if (inside.size() >= 2 && (inside.front() == '\'' || inside.front() == '"') &&
                 inside.back() == inside.front()) {
        steps.push_back({Step::kKey, std::string(inside.substr(1, inside.size() - 2))});
      } else {
        long n = 0;
        auto [end, ec] = std::from_chars(inside.data(), inside.data() + inside.size(), n);
        if (ec != std::errc() || end != inside.data() + inside.size()) {
          return Bad(path, fmt::format("[{}] is not an index, * or a quoted key", inside));
        }
        steps.push_back({Step::kIndex, "", n});
      }
      continue;
    }
    std::string key;
    while (i < p.size() && p[i] != '.' && p[i] != '[') {
      if (p[i] == '\\' && i + 1 < p.size()) ++i;  // "a\.b": a dot inside the key
      key += p[i++];
    }
    steps.push_back({Step::kKey, key});
  }
  return steps;
}

void Walk(const json& at, const std::vector<Step>& steps, size_t k, std::vector<json>* out) {
  if (k == steps.size()) {
    out->push_back(at);
    return;
  }
  const Step& s = steps[k];
  if (s.kind == Step::kKey) {
    if (at.is_object() && at.contains(s.key)) Walk(at[s.key], steps, k + 1, out);
  } else if (s.kind == Step::kIndex) {
    if (!at.is_array()) return;
    long n = s.index < 0 ? static_cast<long>(at.size()) + s.index : s.index;
    if (n >= 0 && n < static_cast<long>(at.size())) Walk(at[n], steps, k + 1, out);
  } else if (at.is_array() || at.is_object()) {
    for (const json& v : at) Walk(v, steps, k + 1, out);
  }
}

}  // namespace

Result<std::vector<json>> JsonPathValues(const json& object, std::string_view path) {
  auto steps = Parse(path);
  if (!steps.ok()) return steps.status();
  std::vector<json> out;
  Walk(object, *steps, 0, &out);
  return out;
}

json JsonPathValue(const json& object, std::string_view path) {
  auto values = JsonPathValues(object, path);
  if (!values.ok() || values->empty()) return nullptr;
  return (*values)[0];
}

std::string JsonPathText(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

Result<std::string> JsonPathTemplate(const json& object, std::string_view tmpl) {
  std::string out;
  size_t i = 0;
  while (i < tmpl.size()) {
    size_t open = tmpl.find('{', i);
    out += tmpl.substr(i, open == std::string_view::npos ? std::string_view::npos : open - i);
    if (open == std::string_view::npos) break;
    size_t close = tmpl.find('}', open);
    if (close == std::string_view::npos) return Bad(tmpl, "unclosed {");
    std::string_view expr = tmpl.substr(open + 1, close - open - 1);
    i = close + 1;
    if (expr.size() >= 2 && expr.front() == '"' && expr.back() == '"') {
      std::string_view text = expr.substr(1, expr.size() - 2);
      for (size_t c = 0; c < text.size(); ++c) {
        if (text[c] == '\\' && c + 1 < text.size()) {
          char e = text[++c];
          out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        } else {
          out += text[c];
        }
      }
      continue;
    }
    if (expr.rfind("range", 0) == 0 || expr == "end" || expr.find('?') != std::string_view::npos) {
      return Bad(tmpl, fmt::format("{{{}}} is not supported (field paths only)", expr));
    }
    auto values = JsonPathValues(object, expr);
    if (!values.ok()) return values.status();
    std::string joined;
    for (const json& v : *values) joined += (joined.empty() ? "" : " ") + JsonPathText(v);
    out += joined;
  }
  return out;
}

Result<std::string> RelaxedJsonPath(std::string_view expression) {
  std::string e(expression);
  if (!e.empty() && e.front() == '{') {
    if (e.back() != '}') return Bad(expression, "unclosed {");
    e = e.substr(1, e.size() - 2);
  }
  if (e.empty()) return Bad(expression, "empty");
  if (e.front() != '.' && e.front() != '[' && e.front() != '$') e = "." + e;
  if (auto steps = Parse(e); !steps.ok()) return steps.status();
  return e;
}

}  // namespace etna::cli
