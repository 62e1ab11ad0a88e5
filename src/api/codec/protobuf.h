// Kubernetes' protobuf encoding of request bodies, for the built-in kinds kubectl's generator
// commands send that way (`kubectl create namespace|configmap|secret|priorityclass|deployment|
// job|cronjob|token|role|clusterrole|rolebinding|clusterrolebinding`, `kubectl auth can-i|
// whoami`).
//
// A body is the 4-byte magic "k8s\0" and a runtime.Unknown message (typeMeta, raw) whose raw
// bytes are the object's own message. Decoded here into the same JSON as the JSON encoding:
// ObjectMeta (name, generateName, namespace, labels, annotations, ownerReferences,
// finalizers), the fields of Namespace, ConfigMap, Secret and PriorityClass, of the RBAC kinds
// and access reviews (a SubjectAccessReview's extra and uid are refused), and of Deployment,
// Job and CronJob with the pod template fields kubectl's generators and common clients set.
// Other kinds are InvalidArgument naming the kind ("send JSON"); unknown fields of the metadata
// are skipped, of the workloads' specs refused naming the message (rather than dropped);
// truncated or malformed input is InvalidArgument. Pure functions; thread-safe; never throw.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

#include "common/status.h"

namespace etna::api::codec {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";

Result<nlohmann::json> DecodeKubernetesProtobuf(std::string_view body);

}  // namespace etna::api::codec
