#include "api/resources/schema.h"

#include <string_view>

#include "api/resources/schema_node.h"

namespace etna::api::resources {
namespace schema {

NodePtr Scalar() {
  static const NodePtr node = std::make_shared<Node>(Node::Type::kScalar, Fields{}, nullptr);
  return node;
}

NodePtr Any() {
  static const NodePtr node = std::make_shared<Node>(Node::Type::kAny, Fields{}, nullptr);
  return node;
}

NodePtr Obj(FieldList fields) { return Obj(Fields(fields)); }

NodePtr Obj(Fields fields) {
  return std::make_shared<Node>(Node::Type::kObject, std::move(fields), nullptr);
}

NodePtr MapOf(NodePtr value) {
  return std::make_shared<Node>(Node::Type::kMap, Fields{}, std::move(value));
}

NodePtr StringMap() {
  static const NodePtr node = MapOf(Scalar());
  return node;
}

NodePtr ArrayOf(NodePtr element) {
  return std::make_shared<Node>(Node::Type::kArray, Fields{}, std::move(element));
}

NodePtr Extend(const NodePtr& base, FieldList more) {
  Fields fields = base->fields();
  for (const auto& [name, node] : more) fields[name] = node;
  return Obj(std::move(fields));
}

NodePtr ObjectMeta() {
  static const NodePtr node = Obj({
      {"name", Scalar()},
      {"generateName", Scalar()},
      {"namespace", Scalar()},
      {"selfLink", Scalar()},
      {"uid", Scalar()},
      {"resourceVersion", Scalar()},
      {"generation", Scalar()},
      {"creationTimestamp", Scalar()},
      {"deletionTimestamp", Scalar()},
      {"deletionGracePeriodSeconds", Scalar()},
      {"labels", StringMap()},
      {"annotations", StringMap()},
      {"ownerReferences", ArrayOf(Obj({{"apiVersion", Scalar()},
                                       {"kind", Scalar()},
                                       {"name", Scalar()},
                                       {"uid", Scalar()},
                                       {"controller", Scalar()},
                                       {"blockOwnerDeletion", Scalar()}}))},
      {"finalizers", ArrayOf(Scalar())},
      {"managedFields", Any()},
  });
  return node;
}

NodePtr LabelSelector() {
  static const NodePtr node = Obj({
      {"matchLabels", StringMap()},
      {"matchExpressions",
       ArrayOf(Obj({{"key", Scalar()}, {"operator", Scalar()}, {"values", ArrayOf(Scalar())}}))},
  });
  return node;
}

NodePtr ObjectReference() {
  static const NodePtr node = Obj({
      {"kind", Scalar()},
      {"namespace", Scalar()},
      {"name", Scalar()},
      {"uid", Scalar()},
      {"apiVersion", Scalar()},
      {"resourceVersion", Scalar()},
      {"fieldPath", Scalar()},
  });
  return node;
}

NodePtr TopLevel(FieldList fields) {
  return Extend(Obj({{"apiVersion", Scalar()}, {"kind", Scalar()}, {"metadata", ObjectMeta()}}),
                fields);
}

namespace {

const Table& Schemas() {
  static const Table* table = [] {
    auto* t = new Table;
    AddCoreSchemas(*t);
    AddAppsSchemas(*t);
    AddVolcanoSchemas(*t);
    AddKedaSchemas(*t);
    return t;
  }();
  return *table;
}

// Appends the unknown fields of `value` under `node` to `out`; `path` is value's own path.
// Recursion follows the schema, which is finite and acyclic, so input depth cannot exhaust it.
void Walk(const Node& node, const nlohmann::json& value, std::string& path,
          std::vector<std::string>& out) {
  const size_t base = path.size();
  auto descend = [&](std::string_view suffix, const Node& child, const nlohmann::json& v) {
    path.append(suffix);
    Walk(child, v, path, out);
    path.resize(base);
  };
  switch (node.type()) {
    case Node::Type::kScalar:
    case Node::Type::kAny:
      return;
    case Node::Type::kObject:
      if (!value.is_object()) return;
      for (const auto& [key, child] : value.items()) {
        std::string suffix = base == 0 ? key : "." + key;
        auto it = node.fields().find(key);
        if (it == node.fields().end()) {
          out.push_back(path + suffix);
        } else {
          descend(suffix, *it->second, child);
        }
      }
      return;
    case Node::Type::kMap:
      if (!value.is_object()) return;
      for (const auto& [key, child] : value.items()) {
        descend(base == 0 ? key : "." + key, *node.element(), child);
      }
      return;
    case Node::Type::kArray:
      if (!value.is_array()) return;
      for (size_t i = 0; i < value.size(); ++i) {
        descend("[" + std::to_string(i) + "]", *node.element(), value[i]);
      }
      return;
  }
}

}  // namespace
}  // namespace schema

std::vector<std::string> UnknownFields(const ResourceInfo& info, const nlohmann::json& object) {
  std::vector<std::string> out;
  const schema::Table& table = schema::Schemas();
  auto it = table.find({info.group, info.kind});
  if (it == table.end()) return out;
  std::string path;
  schema::Walk(*it->second, object, path, out);
  return out;
}

}  // namespace etna::api::resources
