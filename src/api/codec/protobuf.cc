#include "api/codec/protobuf.h"

#include <fmt/format.h>

#include <cstdint>
#include <ctime>
#include <string>

#include "common/base64.h"
#include "common/strings.h"

namespace etna::api::codec {
namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 16;

// Reads the protobuf wire format: varint tags and values, length-delimited fields.
class Reader {
 public:
  explicit Reader(std::string_view data) : data_(data) {}
  bool Done() const { return pos_ >= data_.size(); }
  bool Varint(uint64_t* out) {
    *out = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return false;
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      *out |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return true;
    }
    return false;
  }
  bool Bytes(std::string_view* out) {
    uint64_t n;
    if (!Varint(&n) || n > data_.size() - pos_) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool Skip(int wire_type) {
    uint64_t v;
    std::string_view s;
    switch (wire_type) {
      case 0:
        return Varint(&v);
      case 1:
        return Advance(8);
      case 2:
        return Bytes(&s);
      case 5:
        return Advance(4);
      default:
        return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (n > data_.size() - pos_) return false;
    pos_ += n;
    return true;
  }
  std::string_view data_;
  size_t pos_ = 0;
};

Status Malformed(std::string_view what) {
  return Status::InvalidArgument(fmt::format("malformed protobuf body: {}", what));
}

// A string field's bytes, or InvalidArgument when they are not UTF-8.
Result<std::string> Utf8(std::string_view s, std::string_view field) {
  if (!IsUtf8(s)) return Malformed(fmt::format("{}: not UTF-8", field));
  return std::string(s);
}

// How one field is decoded.
enum class Kind {
  kString,
  kBytes,
  kInt,
  kBool,
  kStringMap,
  kBytesMap,
  kQuantityMap,  // map<string, resource.Quantity>: each value a {1: string} message
  kIntOrString,  // intstr.IntOrString {1: type, 2: intVal, 3: strVal}
  kStrings,
  kMessage,
  kMessages,
  kSkip  // read-only on a create (an object's status): skipped
};
struct MessageSpec;
struct FieldSpec {
  uint32_t number;
  const char* name;
  Kind kind;
  const MessageSpec* message = nullptr;
};
// A message with a `strict_name` refuses the fields it does not list when they carry a value,
// naming the message, rather than skip them: etna would otherwise accept and drop them.
struct MessageSpec {
  std::vector<FieldSpec> fields;
  const char* strict_name = nullptr;
};

const MessageSpec kOwnerReference{{{1, "kind", Kind::kString},
                                   {3, "name", Kind::kString},
                                   {4, "uid", Kind::kString},
                                   {5, "apiVersion", Kind::kString},
                                   {6, "controller", Kind::kBool},
                                   {7, "blockOwnerDeletion", Kind::kBool}}};
const MessageSpec kObjectMeta{{{1, "name", Kind::kString},
                               {2, "generateName", Kind::kString},
                               {3, "namespace", Kind::kString},
                               {5, "uid", Kind::kString},
                               {6, "resourceVersion", Kind::kString},
                               {11, "labels", Kind::kStringMap},
                               {12, "annotations", Kind::kStringMap},
                               {13, "ownerReferences", Kind::kMessages, &kOwnerReference},
                               {14, "finalizers", Kind::kStrings}}};
const MessageSpec kNamespaceSpec{{{1, "finalizers", Kind::kStrings}}};
const MessageSpec kNamespace{
    {{1, "metadata", Kind::kMessage, &kObjectMeta}, {2, "spec", Kind::kMessage, &kNamespaceSpec}}};
// authentication.k8s.io/v1 TokenRequest (what `kubectl create token` sends).
const MessageSpec kBoundObjectReference{{{1, "kind", Kind::kString},
                                         {2, "apiVersion", Kind::kString},
                                         {3, "name", Kind::kString},
                                         {4, "uid", Kind::kString}},
                                        "BoundObjectReference"};
const MessageSpec kTokenRequestSpec{{{1, "audiences", Kind::kStrings},
                                     {3, "boundObjectRef", Kind::kMessage, &kBoundObjectReference},
                                     {4, "expirationSeconds", Kind::kInt}},
                                    "TokenRequestSpec"};
const MessageSpec kTokenRequest{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                                 {2, "spec", Kind::kMessage, &kTokenRequestSpec},
                                 {3, "status", Kind::kSkip}}};
const MessageSpec kConfigMap{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                              {2, "data", Kind::kStringMap},
                              {3, "binaryData", Kind::kBytesMap},
                              {4, "immutable", Kind::kBool}}};
const MessageSpec kSecret{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                           {2, "data", Kind::kBytesMap},
                           {3, "type", Kind::kString},
                           {4, "stringData", Kind::kStringMap},
                           {5, "immutable", Kind::kBool}}};
const MessageSpec kPriorityClass{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                                  {2, "value", Kind::kInt},
                                  {3, "globalDefault", Kind::kBool},
                                  {4, "description", Kind::kString},
                                  {5, "preemptionPolicy", Kind::kString}}};

// The workload kinds `kubectl create deployment|job|cronjob` send (k8s.io/api's generated.proto
// field numbers), with the pod template fields those commands and the common ones set; any other
// field is refused by name.
const MessageSpec kLabelSelectorRequirement{
    {{1, "key", Kind::kString}, {2, "operator", Kind::kString}, {3, "values", Kind::kStrings}},
    "LabelSelectorRequirement"};
const MessageSpec kLabelSelector{
    {{1, "matchLabels", Kind::kStringMap},
     {2, "matchExpressions", Kind::kMessages, &kLabelSelectorRequirement}},
    "LabelSelector"};
const MessageSpec kContainerPort{{{1, "name", Kind::kString},
                                  {2, "hostPort", Kind::kInt},
                                  {3, "containerPort", Kind::kInt},
                                  {4, "protocol", Kind::kString},
                                  {5, "hostIP", Kind::kString}},
                                 "ContainerPort"};
const MessageSpec kEnvVar{{{1, "name", Kind::kString}, {2, "value", Kind::kString}}, "EnvVar"};
const MessageSpec kResourceRequirements{
    {{1, "limits", Kind::kQuantityMap}, {2, "requests", Kind::kQuantityMap}},
    "ResourceRequirements"};
const MessageSpec kVolumeMount{{{1, "name", Kind::kString},
                                {2, "readOnly", Kind::kBool},
                                {3, "mountPath", Kind::kString},
                                {4, "subPath", Kind::kString}},
                               "VolumeMount"};
const MessageSpec kContainer{{{1, "name", Kind::kString},
                              {2, "image", Kind::kString},
                              {3, "command", Kind::kStrings},
                              {4, "args", Kind::kStrings},
                              {5, "workingDir", Kind::kString},
                              {6, "ports", Kind::kMessages, &kContainerPort},
                              {7, "env", Kind::kMessages, &kEnvVar},
                              {8, "resources", Kind::kMessage, &kResourceRequirements},
                              {9, "volumeMounts", Kind::kMessages, &kVolumeMount},
                              {13, "terminationMessagePath", Kind::kString},
                              {14, "imagePullPolicy", Kind::kString},
                              {16, "stdin", Kind::kBool},
                              {17, "stdinOnce", Kind::kBool},
                              {18, "tty", Kind::kBool},
                              {20, "terminationMessagePolicy", Kind::kString}},
                             "Container"};
const MessageSpec kToleration{{{1, "key", Kind::kString},
                               {2, "operator", Kind::kString},
                               {3, "value", Kind::kString},
                               {4, "effect", Kind::kString},
                               {5, "tolerationSeconds", Kind::kInt}},
                              "Toleration"};
const MessageSpec kLocalObjectReference{{{1, "name", Kind::kString}}, "LocalObjectReference"};
// v1 ServiceAccount (what `kubectl create serviceaccount` sends).
const MessageSpec kObjectReference{{{1, "kind", Kind::kString},
                                    {2, "namespace", Kind::kString},
                                    {3, "name", Kind::kString},
                                    {4, "uid", Kind::kString},
                                    {5, "apiVersion", Kind::kString},
                                    {6, "resourceVersion", Kind::kString},
                                    {7, "fieldPath", Kind::kString}},
                                   "ObjectReference"};
const MessageSpec kServiceAccount{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                                   {2, "secrets", Kind::kMessages, &kObjectReference},
                                   {3, "imagePullSecrets", Kind::kMessages, &kLocalObjectReference},
                                   {4, "automountServiceAccountToken", Kind::kBool}},
                                  "ServiceAccount"};
const MessageSpec kPodSpec{{{2, "containers", Kind::kMessages, &kContainer},
                            {3, "restartPolicy", Kind::kString},
                            {4, "terminationGracePeriodSeconds", Kind::kInt},
                            {5, "activeDeadlineSeconds", Kind::kInt},
                            {6, "dnsPolicy", Kind::kString},
                            {7, "nodeSelector", Kind::kStringMap},
                            {8, "serviceAccountName", Kind::kString},
                            {9, "serviceAccount", Kind::kString},
                            {10, "nodeName", Kind::kString},
                            {15, "imagePullSecrets", Kind::kMessages, &kLocalObjectReference},
                            {16, "hostname", Kind::kString},
                            {17, "subdomain", Kind::kString},
                            {19, "schedulerName", Kind::kString},
                            {20, "initContainers", Kind::kMessages, &kContainer},
                            {22, "tolerations", Kind::kMessages, &kToleration},
                            {24, "priorityClassName", Kind::kString},
                            {25, "priority", Kind::kInt}},
                           "PodSpec"};
const MessageSpec kPodTemplateSpec{
    {{1, "metadata", Kind::kMessage, &kObjectMeta}, {2, "spec", Kind::kMessage, &kPodSpec}},
    "PodTemplateSpec"};
const MessageSpec kJobSpec{{{1, "parallelism", Kind::kInt},
                            {2, "completions", Kind::kInt},
                            {3, "activeDeadlineSeconds", Kind::kInt},
                            {4, "selector", Kind::kMessage, &kLabelSelector},
                            {5, "manualSelector", Kind::kBool},
                            {6, "template", Kind::kMessage, &kPodTemplateSpec},
                            {7, "backoffLimit", Kind::kInt},
                            {8, "ttlSecondsAfterFinished", Kind::kInt},
                            {9, "completionMode", Kind::kString},
                            {10, "suspend", Kind::kBool}},
                           "JobSpec"};
const MessageSpec kJob{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                        {2, "spec", Kind::kMessage, &kJobSpec},
                        {3, "status", Kind::kSkip}},
                       "Job"};
const MessageSpec kJobTemplateSpec{
    {{1, "metadata", Kind::kMessage, &kObjectMeta}, {2, "spec", Kind::kMessage, &kJobSpec}},
    "JobTemplateSpec"};
const MessageSpec kCronJobSpec{{{1, "schedule", Kind::kString},
                                {2, "startingDeadlineSeconds", Kind::kInt},
                                {3, "concurrencyPolicy", Kind::kString},
                                {4, "suspend", Kind::kBool},
                                {5, "jobTemplate", Kind::kMessage, &kJobTemplateSpec},
                                {6, "successfulJobsHistoryLimit", Kind::kInt},
                                {7, "failedJobsHistoryLimit", Kind::kInt},
                                {8, "timeZone", Kind::kString}},
                               "CronJobSpec"};
const MessageSpec kCronJob{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                            {2, "spec", Kind::kMessage, &kCronJobSpec},
                            {3, "status", Kind::kSkip}},
                           "CronJob"};
const MessageSpec kRollingUpdateDeployment{
    {{1, "maxUnavailable", Kind::kIntOrString}, {2, "maxSurge", Kind::kIntOrString}},
    "RollingUpdateDeployment"};
const MessageSpec kDeploymentStrategy{
    {{1, "type", Kind::kString}, {2, "rollingUpdate", Kind::kMessage, &kRollingUpdateDeployment}},
    "DeploymentStrategy"};
const MessageSpec kDeploymentSpec{{{1, "replicas", Kind::kInt},
                                   {2, "selector", Kind::kMessage, &kLabelSelector},
                                   {3, "template", Kind::kMessage, &kPodTemplateSpec},
                                   {4, "strategy", Kind::kMessage, &kDeploymentStrategy},
                                   {5, "minReadySeconds", Kind::kInt},
                                   {6, "revisionHistoryLimit", Kind::kInt},
                                   {7, "paused", Kind::kBool},
                                   {9, "progressDeadlineSeconds", Kind::kInt}},
                                  "DeploymentSpec"};
const MessageSpec kDeployment{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                               {2, "spec", Kind::kMessage, &kDeploymentSpec},
                               {3, "status", Kind::kSkip}},
                              "Deployment"};
// rbac.authorization.k8s.io/v1 (what kubectl create role/rolebinding/... sends).
const MessageSpec kPolicyRule{{{1, "verbs", Kind::kStrings},
                               {2, "apiGroups", Kind::kStrings},
                               {3, "resources", Kind::kStrings},
                               {4, "resourceNames", Kind::kStrings},
                               {5, "nonResourceURLs", Kind::kStrings}},
                              "PolicyRule"};
const MessageSpec kAggregationRule{{{1, "clusterRoleSelectors", Kind::kMessages, &kLabelSelector}},
                                   "AggregationRule"};
const MessageSpec kRole{
    {{1, "metadata", Kind::kMessage, &kObjectMeta}, {2, "rules", Kind::kMessages, &kPolicyRule}},
    "Role"};
const MessageSpec kClusterRole{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                                {2, "rules", Kind::kMessages, &kPolicyRule},
                                {3, "aggregationRule", Kind::kMessage, &kAggregationRule}},
                               "ClusterRole"};
const MessageSpec kSubject{{{1, "kind", Kind::kString},
                            {2, "apiGroup", Kind::kString},
                            {3, "name", Kind::kString},
                            {4, "namespace", Kind::kString}},
                           "Subject"};
const MessageSpec kRoleRef{
    {{1, "apiGroup", Kind::kString}, {2, "kind", Kind::kString}, {3, "name", Kind::kString}},
    "RoleRef"};
const MessageSpec kRoleBinding{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                                {2, "subjects", Kind::kMessages, &kSubject},
                                {3, "roleRef", Kind::kMessage, &kRoleRef}},
                               "RoleBinding"};
// authorization.k8s.io/v1 reviews (kubectl auth can-i) and authentication.k8s.io/v1
// SelfSubjectReview (kubectl auth whoami).
const MessageSpec kResourceAttributes{{{1, "namespace", Kind::kString},
                                       {2, "verb", Kind::kString},
                                       {3, "group", Kind::kString},
                                       {4, "version", Kind::kString},
                                       {5, "resource", Kind::kString},
                                       {6, "subresource", Kind::kString},
                                       {7, "name", Kind::kString}},
                                      "ResourceAttributes"};
const MessageSpec kNonResourceAttributes{{{1, "path", Kind::kString}, {2, "verb", Kind::kString}},
                                         "NonResourceAttributes"};
const MessageSpec kAccessReviewSpec{
    {{1, "resourceAttributes", Kind::kMessage, &kResourceAttributes},
     {2, "nonResourceAttributes", Kind::kMessage, &kNonResourceAttributes},
     {3, "user", Kind::kString},
     {4, "groups", Kind::kStrings}},
    "SubjectAccessReviewSpec"};
const MessageSpec kAccessReview{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                                 {2, "spec", Kind::kMessage, &kAccessReviewSpec},
                                 {3, "status", Kind::kSkip}},
                                "SubjectAccessReview"};
const MessageSpec kRulesReviewSpec{{{1, "namespace", Kind::kString}}, "SelfSubjectRulesReviewSpec"};
const MessageSpec kRulesReview{{{1, "metadata", Kind::kMessage, &kObjectMeta},
                                {2, "spec", Kind::kMessage, &kRulesReviewSpec},
                                {3, "status", Kind::kSkip}},
                               "SelfSubjectRulesReview"};
const MessageSpec kSelfSubjectReview{
    {{1, "metadata", Kind::kMessage, &kObjectMeta}, {2, "status", Kind::kSkip}},
    "SelfSubjectReview"};

Result<Json> DecodeMessage(std::string_view data, const MessageSpec& spec, int depth);

// A resource.Quantity message: its string (1).
Result<Json> DecodeQuantity(std::string_view data) {
  Reader r(data);
  Json out = "";
  while (!r.Done()) {
    uint64_t tag;
    std::string_view s;
    if (!r.Varint(&tag)) return Malformed("quantity tag");
    if (tag == ((1 << 3) | 2)) {
      if (!r.Bytes(&s)) return Malformed("quantity");
      ETNA_ASSIGN_OR_RETURN(std::string text, Utf8(s, "quantity"));
      out = std::move(text);
    } else if (!r.Skip(static_cast<int>(tag & 7))) {
      return Malformed("quantity field");
    }
  }
  return out;
}

// An intstr.IntOrString message: its int (2) when type (1) is 0, else its string (3).
Result<Json> DecodeIntOrString(std::string_view data) {
  Reader r(data);
  uint64_t type = 0, int_value = 0;
  std::string text;
  while (!r.Done()) {
    uint64_t tag;
    std::string_view s;
    if (!r.Varint(&tag)) return Malformed("IntOrString tag");
    if (tag == ((1 << 3) | 0)) {
      if (!r.Varint(&type)) return Malformed("IntOrString type");
    } else if (tag == ((2 << 3) | 0)) {
      if (!r.Varint(&int_value)) return Malformed("IntOrString intVal");
    } else if (tag == ((3 << 3) | 2)) {
      if (!r.Bytes(&s)) return Malformed("IntOrString strVal");
      ETNA_ASSIGN_OR_RETURN(text, Utf8(s, "IntOrString strVal"));
    } else if (!r.Skip(static_cast<int>(tag & 7))) {
      return Malformed("IntOrString field");
    }
  }
  if (type == 0) return Json(static_cast<int64_t>(static_cast<int32_t>(int_value)));
  return Json(text);
}

// A map entry message: key (1) and value (2): a string, bytes (base64) or a Quantity message.
Status DecodeMapEntry(std::string_view data, Kind kind, Json* map) {
  const bool bytes_value = kind == Kind::kBytesMap;
  Reader r(data);
  std::string key;
  Json value = "";
  while (!r.Done()) {
    uint64_t tag;
    if (!r.Varint(&tag)) return Malformed("map entry tag");
    std::string_view s;
    if ((tag >> 3) == 1 && (tag & 7) == 2) {
      if (!r.Bytes(&s)) return Malformed("map key");
      ETNA_ASSIGN_OR_RETURN(key, Utf8(s, "map key"));
    } else if ((tag >> 3) == 2 && (tag & 7) == 2) {
      if (!r.Bytes(&s)) return Malformed("map value");
      if (kind == Kind::kQuantityMap) {
        ETNA_ASSIGN_OR_RETURN(value, DecodeQuantity(s));
      } else if (bytes_value) {
        value = Base64Encode(s);
      } else {
        ETNA_ASSIGN_OR_RETURN(std::string text, Utf8(s, "map value"));
        value = std::move(text);
      }
    } else if (!r.Skip(static_cast<int>(tag & 7))) {
      return Malformed("map entry field");
    }
  }
  (*map)[key] = value;
  return Status::Ok();
}

Status DecodeField(Reader& r, const FieldSpec& f, int wire_type, int depth, Json& out) {
  std::string_view s;
  uint64_t v;
  auto need = [&](int want) { return wire_type == want; };
  switch (f.kind) {
    case Kind::kString:
    case Kind::kBytes:
      if (!need(2) || !r.Bytes(&s)) return Malformed(f.name);
      if (f.kind == Kind::kBytes) {
        out[f.name] = Base64Encode(s);
      } else {
        ETNA_ASSIGN_OR_RETURN(std::string text, Utf8(s, f.name));
        // Go writes an unset string field as "" where its JSON leaves the field out.
        if (!text.empty()) out[f.name] = std::move(text);
      }
      return Status::Ok();
    case Kind::kInt:
      if (!need(0) || !r.Varint(&v)) return Malformed(f.name);
      out[f.name] = static_cast<int64_t>(v);
      return Status::Ok();
    case Kind::kBool:
      if (!need(0) || !r.Varint(&v)) return Malformed(f.name);
      out[f.name] = v != 0;
      return Status::Ok();
    case Kind::kStringMap:
    case Kind::kBytesMap:
    case Kind::kQuantityMap: {
      if (!need(2) || !r.Bytes(&s)) return Malformed(f.name);
      Json& map = out[f.name];
      if (!map.is_object()) map = Json::object();
      return DecodeMapEntry(s, f.kind, &map);
    }
    case Kind::kIntOrString: {
      if (!need(2) || !r.Bytes(&s)) return Malformed(f.name);
      ETNA_ASSIGN_OR_RETURN(out[f.name], DecodeIntOrString(s));
      return Status::Ok();
    }
    case Kind::kSkip:
      return r.Skip(wire_type) ? Status::Ok() : Malformed(f.name);
    case Kind::kStrings: {
      if (!need(2) || !r.Bytes(&s)) return Malformed(f.name);
      ETNA_ASSIGN_OR_RETURN(std::string text, Utf8(s, f.name));
      out[f.name].push_back(std::move(text));
      return Status::Ok();
    }
    case Kind::kMessage:
    case Kind::kMessages: {
      if (!need(2) || !r.Bytes(&s)) return Malformed(f.name);
      ETNA_ASSIGN_OR_RETURN(Json message, DecodeMessage(s, *f.message, depth + 1));
      if (f.kind == Kind::kMessage) {
        out[f.name] = std::move(message);
      } else {
        out[f.name].push_back(std::move(message));
      }
      return Status::Ok();
    }
  }
  return Malformed(f.name);
}

Result<Json> DecodeMessage(std::string_view data, const MessageSpec& spec, int depth) {
  if (depth > kMaxDepth) return Malformed("nested too deep");
  Json out = Json::object();
  Reader r(data);
  while (!r.Done()) {
    uint64_t tag;
    if (!r.Varint(&tag) || tag >> 3 == 0) return Malformed("field tag");
    const FieldSpec* field = nullptr;
    for (const auto& f : spec.fields) {
      if (f.number == (tag >> 3)) field = &f;
    }
    int wire_type = static_cast<int>(tag & 7);
    if (!field && spec.strict_name != nullptr) {
      // Go's generated marshalling writes every non-pointer field, set or not: a zero value
      // (0, false, "", an empty message) says nothing and is skipped.
      uint64_t number = 0;
      std::string_view bytes;
      bool zero = (wire_type == 0 && r.Varint(&number) && number == 0) ||
                  (wire_type == 2 && r.Bytes(&bytes) && bytes.empty());
      if (zero) continue;
      return Status::InvalidArgument(fmt::format(
          "protobuf body: field {} of {} is not decoded by etna; send JSON or YAML (kubectl "
          "apply -f) for this object",
          tag >> 3, spec.strict_name));
    }
    if (!field) {
      if (!r.Skip(wire_type)) return Malformed("unknown field");
      continue;
    }
    ETNA_RETURN_IF_ERROR(DecodeField(r, *field, wire_type, depth, out));
  }
  return out;
}

}  // namespace

Result<Json> DecodeKubernetesProtobuf(std::string_view body) {
  constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) return Malformed("missing the k8s envelope");
  // runtime.Unknown: 1 typeMeta {1 apiVersion, 2 kind}, 2 raw.
  Reader r(body.substr(4));
  std::string api_version, kind;
  std::string_view raw;
  while (!r.Done()) {
    uint64_t tag;
    std::string_view s;
    if (!r.Varint(&tag)) return Malformed("envelope tag");
    if (tag == ((1 << 3) | 2)) {
      if (!r.Bytes(&s)) return Malformed("typeMeta");
      Reader t(s);
      while (!t.Done()) {
        uint64_t ttag;
        std::string_view value;
        if (!t.Varint(&ttag)) return Malformed("typeMeta tag");
        if ((ttag & 7) != 2) {
          if (!t.Skip(static_cast<int>(ttag & 7))) return Malformed("typeMeta field");
          continue;
        }
        if (!t.Bytes(&value)) return Malformed("typeMeta field");
        if (!IsUtf8(value)) return Malformed("typeMeta: not UTF-8");
        if ((ttag >> 3) == 1) api_version = std::string(value);
        if ((ttag >> 3) == 2) kind = std::string(value);
      }
    } else if (tag == ((2 << 3) | 2)) {
      if (!r.Bytes(&raw)) return Malformed("raw object");
    } else if (!r.Skip(static_cast<int>(tag & 7))) {
      return Malformed("envelope field");
    }
  }
  const MessageSpec* spec = nullptr;
  if (api_version == "v1" && kind == "Namespace") spec = &kNamespace;
  if (api_version == "v1" && kind == "ConfigMap") spec = &kConfigMap;
  if (api_version == "v1" && kind == "Secret") spec = &kSecret;
  if (api_version == "v1" && kind == "ServiceAccount") spec = &kServiceAccount;
  if (api_version == "scheduling.k8s.io/v1" && kind == "PriorityClass") spec = &kPriorityClass;
  if (api_version == "apps/v1" && kind == "Deployment") spec = &kDeployment;
  if (api_version == "batch/v1" && kind == "Job") spec = &kJob;
  if (api_version == "batch/v1" && kind == "CronJob") spec = &kCronJob;
  if (api_version == "authentication.k8s.io/v1" && kind == "TokenRequest") spec = &kTokenRequest;
  if (api_version == "rbac.authorization.k8s.io/v1") {
    if (kind == "Role") spec = &kRole;
    if (kind == "ClusterRole") spec = &kClusterRole;
    if (kind == "RoleBinding" || kind == "ClusterRoleBinding") spec = &kRoleBinding;
  }
  if (api_version == "authorization.k8s.io/v1") {
    if (kind == "SelfSubjectAccessReview" || kind == "SubjectAccessReview" ||
        kind == "LocalSubjectAccessReview") {
      spec = &kAccessReview;
    }
    if (kind == "SelfSubjectRulesReview") spec = &kRulesReview;
  }
  if (api_version == "authentication.k8s.io/v1" && kind == "SelfSubjectReview") {
    spec = &kSelfSubjectReview;
  }
  if (!spec) {
    return Status::InvalidArgument(fmt::format(
        "unsupported content type \"{}\" for {} {}: etna decodes protobuf only for Namespace, "
        "ConfigMap, Secret, ServiceAccount, PriorityClass, Deployment, Job, CronJob, "
        "TokenRequest, the RBAC kinds and the access reviews; send JSON or YAML (kubectl "
        "apply -f)",
        kProtobufContentType, api_version, kind));
  }
  ETNA_ASSIGN_OR_RETURN(Json object, DecodeMessage(raw, *spec, 0));
  object["apiVersion"] = api_version;
  object["kind"] = kind;
  return object;
}

}  // namespace etna::api::codec
