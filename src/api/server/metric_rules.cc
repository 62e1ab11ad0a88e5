#include "api/server/metric_rules.h"

#include <fmt/format.h>

#include "api/codec/decode.h"
#include "api/types/pod_metrics.h"
#include "common/strings.h"

namespace etna::api::server {

namespace {

using nlohmann::json;
using Op = codec::LabelSelector::Op;

constexpr char kMatchers[] = "<<.LabelMatchers>>";

// [a-zA-Z_:][a-zA-Z0-9_:]* (a Prometheus metric name; label names are the same without ':').
bool IsPromName(const std::string& s, bool allow_colon) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
              (allow_colon && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

std::string Quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

// The values as one RE2 alternation, each matched literally.
std::string Alternation(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) {
    if (!out.empty()) out += '|';
    for (char c : v) {
      if (std::string_view(".+*?()|[]{}^$\\").find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
  }
  return out;
}

}  // namespace

Result<MetricRules> MetricRules::Parse(const std::string& yaml) {
  auto docs = codec::DecodeYamlDocuments(yaml);
  if (!docs.ok()) return docs.status();
  if (docs->size() != 1 || !(*docs)[0].is_object()) {
    return Status::InvalidArgument("metric rules: expected one YAML document, a mapping");
  }
  const json& doc = (*docs)[0];
  MetricRules rules;
  for (const auto& [key, value] : doc.items()) {
    if (key != "prometheus" && key != "externalRules") {
      return Status::InvalidArgument(fmt::format(
          "metric rules: unknown field \"{}\" (known: prometheus, externalRules)", key));
    }
  }
  if (doc.contains("prometheus")) {
    if (!doc["prometheus"].is_string()) {
      return Status::InvalidArgument("metric rules: prometheus: must be a URL string");
    }
    rules.prometheus = doc["prometheus"].get<std::string>();
    if (!IsHttpUrl(rules.prometheus)) {
      return Status::InvalidArgument(
          fmt::format("metric rules: prometheus: \"{}\" must start with http:// or https://",
                      rules.prometheus));
    }
  }
  const json list = doc.value("externalRules", json::array());
  if (!list.is_array())
    return Status::InvalidArgument("metric rules: externalRules: must be a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = fmt::format("metric rules: externalRules[{}]", i);
    const json& r = list[i];
    if (!r.is_object()) return Status::InvalidArgument(at + ": must be a mapping");
    for (const auto& [key, value] : r.items()) {
      if (key != "name" && key != "query") {
        return Status::InvalidArgument(
            fmt::format("{}: unknown field \"{}\" (known: name, query)", at, key));
      }
    }
    ExternalMetricRule rule;
    rule.name = r.value("name", "");
    rule.query = r.value("query", "");
    if (!IsPromName(rule.name, /*allow_colon=*/true)) {
      return Status::InvalidArgument(fmt::format(
          "{}.name: \"{}\" is not a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)", at, rule.name));
    }
    if (types::IsPodMetric(rule.name)) {
      return Status::InvalidArgument(fmt::format(
          "{}.name: \"{}\" is a built-in per-pod metric; choose another name", at, rule.name));
    }
    if (rules.Find(rule.name)) {
      return Status::InvalidArgument(
          fmt::format("{}.name: \"{}\" is defined twice", at, rule.name));
    }
    if (rule.query.empty()) return Status::InvalidArgument(at + ".query: required");
    rules.external.push_back(std::move(rule));
  }
  if (!rules.external.empty() && rules.prometheus.empty()) {
    return Status::InvalidArgument(
        "metric rules: prometheus: required when externalRules query it");
  }
  return rules;
}

const ExternalMetricRule* MetricRules::Find(const std::string& name) const {
  for (const ExternalMetricRule& r : external) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

Result<std::string> PromLabelMatchers(const std::string& ns, const codec::LabelSelector& selector) {
  std::string out = "namespace=" + Quoted(ns);
  for (const auto& r : selector.requirements()) {
    if (!IsPromName(r.key, /*allow_colon=*/false)) {
      return Status::InvalidArgument(fmt::format(
          "labelSelector: \"{}\" is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*)", r.key));
    }
    out += "," + r.key;
    switch (r.op) {
      case Op::kEquals:
        out += "=" + Quoted(r.values.empty() ? "" : r.values[0]);
        break;
      case Op::kNotEquals:
        out += "!=" + Quoted(r.values.empty() ? "" : r.values[0]);
        break;
      case Op::kIn:
        out += "=~" + Quoted(Alternation(r.values));
        break;
      case Op::kNotIn:
        out += "!~" + Quoted(Alternation(r.values));
        break;
      case Op::kExists:
        out += "!=\"\"";
        break;
      case Op::kDoesNotExist:
        out += "=\"\"";
        break;
      default:
        return Status::InvalidArgument(
            fmt::format("labelSelector: \"{}\": Gt and Lt have no Prometheus matcher", r.key));
    }
  }
  return out;
}

std::string ExpandRuleQuery(const std::string& query, const std::string& matchers) {
  std::string out = query;
  const std::string token = kMatchers;
  for (size_t at = out.find(token); at != std::string::npos;
       at = out.find(token, at + matchers.size())) {
    out.replace(at, token.size(), matchers);
  }
  return out;
}

}  // namespace etna::api::server
