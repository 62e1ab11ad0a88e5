// The declarative schema tree behind UnknownFields (schema.h): objects with named fields, maps
// with free keys, arrays of one node, free-form ("any") values and scalars. Internal to the
// resources library. Nodes are immutable once built and shared; thread-safe.
#pragma once

#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace etna::api::resources::schema {

class Node;
using NodePtr = std::shared_ptr<const Node>;
using Fields = std::map<std::string, NodePtr, std::less<>>;

// One schema node. Only field names are checked: a value whose JSON type does not match the
// node (a string where an object is expected) is left to admission.
class Node {
 public:
  enum class Type { kScalar, kAny, kObject, kMap, kArray };

  Node(Type type, Fields fields, NodePtr element)
      : type_(type), fields_(std::move(fields)), element_(std::move(element)) {}

  Type type() const { return type_; }
  const Fields& fields() const { return fields_; }     // kObject
  const NodePtr& element() const { return element_; }  // kMap values, kArray items

 private:
  Type type_;
  Fields fields_;
  NodePtr element_;
};

using FieldList = std::initializer_list<std::pair<const std::string, NodePtr>>;

NodePtr Scalar();               // a string, number, boolean or null
NodePtr Any();                  // free-form: anything below is accepted
NodePtr Obj(FieldList fields);  // an object with exactly these fields
NodePtr Obj(Fields fields);
NodePtr MapOf(NodePtr value);      // an object with free keys, each value a `value`
NodePtr StringMap();               // MapOf(Scalar()): labels, data, resource lists
NodePtr ArrayOf(NodePtr element);  // a list of `element`
// `base` (an object node) with `more` fields added.
NodePtr Extend(const NodePtr& base, FieldList more);

// Shared Kubernetes types.
NodePtr ObjectMeta();
NodePtr LabelSelector();    // matchLabels, matchExpressions[key, operator, values]
NodePtr ObjectReference();  // core/v1 ObjectReference
NodePtr PodSpec();
NodePtr PodTemplateSpec();  // metadata, spec
NodePtr ResourceRequirements();
// An object of a kind: apiVersion, kind, metadata, and `fields` (spec, status, data, ...).
NodePtr TopLevel(FieldList fields);

// Schemas by (group, kind), filled per group.
using Table = std::map<std::pair<std::string, std::string>, NodePtr>;
void AddCoreSchemas(Table& table);     // core/v1, coordination, scheduling.k8s.io, rbac
void AddAppsSchemas(Table& table);     // apps/v1, autoscaling/v2
void AddVolcanoSchemas(Table& table);  // Volcano's groups and the seed's QueueBinding
void AddKedaSchemas(Table& table);     // keda.sh ScaledObject

}  // namespace etna::api::resources::schema
