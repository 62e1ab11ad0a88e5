// ParsePriorityConf and ResolvePriority (priority.h): the one priority rule of admission, the
// scheduler and the job controller.
#include "api/types/priority.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <limits>

namespace etna::api::types {
namespace {

Status ReadInt32(const YAML::Node& node, const std::string& where, int32_t* out) {
  int64_t v = 0;
  if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, v)) {
    return Status::InvalidArgument(fmt::format("{}: must be an integer", where));
  }
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
    return Status::InvalidArgument(fmt::format("{}: {} is out of the 32-bit range", where, v));
  }
  *out = static_cast<int32_t>(v);
  return Status::Ok();
}

Status ParseClasses(const YAML::Node& list, PriorityConf& conf) {
  if (!list.IsSequence()) return Status::InvalidArgument("classAndPriors: must be a list");
  for (size_t i = 0; i < list.size(); ++i) {
    std::string where = fmt::format("classAndPriors[{}]", i);
    const YAML::Node& item = list[i];
    if (!item.IsMap()) return Status::InvalidArgument(where + ": must be a map");
    std::string name;
    std::optional<int32_t> value;
    for (const auto& kv : item) {
      std::string key = kv.first.as<std::string>();
      if (key == "class") {
        if (!kv.second.IsScalar() || kv.second.Scalar().empty()) {
          return Status::InvalidArgument(where + ".class: must be a non-empty string");
        }
        name = kv.second.Scalar();
      } else if (key == "priority") {
        int32_t v = 0;
        ETNA_RETURN_IF_ERROR(ReadInt32(kv.second, where + ".priority", &v));
        value = v;
      } else {
        conf.unknown_keys.push_back(where + "." + key);
      }
    }
    if (name.empty()) return Status::InvalidArgument(where + ".class: required");
    if (!value) return Status::InvalidArgument(where + ".priority: required");
    if (conf.Find(name)) {
      return Status::InvalidArgument(fmt::format("{}.class: \"{}\" is listed twice", where, name));
    }
    conf.classes.emplace_back(name, *value);
  }
  return Status::Ok();
}

}  // namespace

std::optional<int32_t> PriorityConf::Find(std::string_view name) const {
  for (const auto& [n, v] : classes) {
    if (n == name) return v;
  }
  return std::nullopt;
}

Result<PriorityConf> ParsePriorityConf(std::string_view yaml) {
  PriorityConf conf;
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    if (root.IsNull()) return conf;
    if (!root.IsMap()) return Status::InvalidArgument("priority.conf: must be a map");
    for (const auto& kv : root) {
      std::string key = kv.first.as<std::string>();
      if (key == "defaultPriority") {
        int32_t v = 0;
        ETNA_RETURN_IF_ERROR(ReadInt32(kv.second, "defaultPriority", &v));
        conf.default_priority = v;
      } else if (key == "classAndPriors") {
        ETNA_RETURN_IF_ERROR(ParseClasses(kv.second, conf));
      } else {
        conf.unknown_keys.push_back(key);
      }
    }
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(
        fmt::format("priority.conf: YAML error at line {}: {}", e.mark.line + 1, e.msg));
  }
  return conf;
}

std::optional<int32_t> PriorityClassTable::ObjectValue(const std::string& name) {
  auto it = objects.find(name);
  if (it == objects.end()) return std::nullopt;
  return it->second.value;
}

std::optional<std::pair<std::string, int32_t>> PriorityClassTable::GlobalDefault() {
  for (const auto& [name, c] : objects) {
    if (c.global_default) return std::pair{name, c.value};
  }
  return std::nullopt;
}

ResolvedPriority ResolvePriority(const std::string& class_name, std::optional<int64_t> own,
                                 PriorityClassSource& source, std::string_view what) {
  ResolvedPriority r;
  if (!class_name.empty()) {
    std::optional<int32_t> value = source.ObjectValue(class_name);
    if (!value) value = source.Conf().Find(class_name);
    if (value) {
      r.value = *value;
      r.class_name = class_name;
      if (own && *own != *value) {
        r.problem = fmt::format(
            "the integer value of priority ({}) must not be provided in {}; priority admission "
            "controller computed {} from the given PriorityClass name",
            *own, what, *value);
      }
      return r;
    }
    r.problem = fmt::format("no PriorityClass with name {} was found", class_name);
  }
  if (own) {
    r.value = static_cast<int32_t>(*own);
    return r;
  }
  // The default, looked up once (admission's source reads the store for it).
  if (auto d = source.GlobalDefault()) {
    r.value = d->second;
    if (class_name.empty()) r.class_name = d->first;
    return r;
  }
  r.value = source.Conf().default_priority.value_or(0);
  return r;
}

}  // namespace etna::api::types
