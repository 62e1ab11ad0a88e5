// ObjectView: the metadata every API object has (name, namespace, uid, labels, annotations,
// owner references, deletion), read through a thin non-owning view of its JSON. The kinds'
// views (pod.h, node.h, job.h, podgroup.h) extend it. A view must not outlive its JSON.
// Thread-safety: const reads of the JSON only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/types/fields.h"

namespace etna::api::types {

class ObjectView {
 public:
  explicit ObjectView(const Json& object) : object_(&object) {}

  const Json& json() const { return *object_; }
  std::string name() const { return String(*object_, {"metadata", "name"}); }
  std::string ns() const { return String(*object_, {"metadata", "namespace"}); }
  std::string uid() const { return String(*object_, {"metadata", "uid"}); }
  std::string kind() const { return String(*object_, {"kind"}); }
  std::string creation_timestamp() const {
    return String(*object_, {"metadata", "creationTimestamp"});
  }
  int64_t generation() const { return Integer(*object_, {"metadata", "generation"}); }
  // "<namespace>/<name>", or "<name>" for a cluster-scoped object.
  std::string Key() const;
  const Json& labels() const { return Object(*object_, {"metadata", "labels"}); }
  const Json& annotations() const { return Object(*object_, {"metadata", "annotations"}); }
  std::string Label(std::string_view key, std::string_view fallback = {}) const {
    return String(labels(), {key}, fallback);
  }
  std::string Annotation(std::string_view key, std::string_view fallback = {}) const {
    return String(annotations(), {key}, fallback);
  }
  bool HasAnnotation(std::string_view key) const { return Find(annotations(), {key}) != nullptr; }
  const Json& owner_references() const { return Array(*object_, {"metadata", "ownerReferences"}); }
  // The uid of the owner reference with controller: true; nullopt when none is.
  std::optional<std::string> ControllerUid() const;
  // The name of the controlling owner when it is of `kind`; "" otherwise.
  std::string ControllerName(std::string_view kind) const;
  // Whether an owner reference names an owner of `kind`.
  bool HasOwnerOfKind(std::string_view kind) const;
  // Whether metadata.finalizers lists `finalizer`.
  bool HasFinalizer(std::string_view finalizer) const;
  // Deleted and waiting for its finalizers or grace period (metadata.deletionTimestamp set).
  bool IsDeleting() const { return Find(*object_, {"metadata", "deletionTimestamp"}) != nullptr; }

 private:
  const Json* object_;
};

}  // namespace etna::api::types
