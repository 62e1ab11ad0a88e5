// Kubernetes protobuf bodies as kubectl's generator commands send them.
#include "api/codec/protobuf.h"

#include <gtest/gtest.h>

#include <string>

#include "api/codec/decode.h"

namespace etna::api::codec {
namespace {

using nlohmann::json;

// A tiny protobuf writer for building test bodies.
std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string Field(int number, const std::string& bytes) {
  return Varint((number << 3) | 2) + Varint(bytes.size()) + bytes;
}
std::string IntField(int number, uint64_t v) { return Varint(number << 3) + Varint(v); }
std::string MapEntry(int number, const std::string& k, const std::string& v) {
  return Field(number, Field(1, k) + Field(2, v));
}
std::string Envelope(const std::string& api_version, const std::string& kind,
                     const std::string& raw) {
  return std::string("k8s\0", 4) + Field(1, Field(1, api_version) + Field(2, kind)) +
         Field(2, raw) + Field(4, "application/vnd.kubernetes.protobuf");
}

TEST(ProtobufTest, NamespaceAsKubectlCreateNamespaceSendsIt) {
  std::string meta = Field(1, "team-a") + MapEntry(11, "env", "prod");
  auto decoded = DecodeKubernetesProtobuf(
      Envelope("v1", "Namespace", Field(1, meta) + Field(2, "") + Field(3, "")));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, json::parse(R"({"apiVersion":"v1","kind":"Namespace",
      "metadata":{"name":"team-a","labels":{"env":"prod"}},"spec":{}})"));
}

TEST(ProtobufTest, ConfigMapAndSecretData) {
  std::string cm = Field(1, Field(1, "c") + Field(3, "default")) + MapEntry(2, "a", "b") +
                   MapEntry(3, "bin", std::string("\x00\xff", 2)) + IntField(4, 1);
  auto decoded = DecodeBody(Envelope("v1", "ConfigMap", cm), kProtobufContentType);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ((*decoded)["data"]["a"], "b");
  EXPECT_EQ((*decoded)["binaryData"]["bin"], "AP8=");
  EXPECT_EQ((*decoded)["immutable"], true);
  EXPECT_EQ((*decoded)["metadata"]["namespace"], "default");
  std::string secret =
      Field(1, Field(1, "s")) + MapEntry(2, "password", "hunter2") + Field(3, "Opaque");
  auto s = DecodeKubernetesProtobuf(Envelope("v1", "Secret", secret));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)["data"]["password"], "aHVudGVyMg==");
  EXPECT_EQ((*s)["type"], "Opaque");
}

TEST(ProtobufTest, PriorityClassValue) {
  std::string pc =
      Field(1, Field(1, "high")) + IntField(2, 100) + IntField(3, 0) + Field(4, "High");
  auto decoded = DecodeKubernetesProtobuf(Envelope("scheduling.k8s.io/v1", "PriorityClass", pc));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ((*decoded)["value"], 100);
  EXPECT_EQ((*decoded)["globalDefault"], false);
}

TEST(ProtobufTest, ServiceAccountAsKubectlCreateServiceAccountSendsIt) {
  std::string meta = Field(1, "alice") + Field(3, "team-a");
  std::string pull = Field(1, "registry-key");
  auto decoded = DecodeKubernetesProtobuf(
      Envelope("v1", "ServiceAccount", Field(1, meta) + Field(3, pull) + IntField(4, 0)));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ((*decoded)["metadata"]["name"], "alice");
  EXPECT_EQ((*decoded)["metadata"]["namespace"], "team-a");
  EXPECT_EQ((*decoded)["imagePullSecrets"][0]["name"], "registry-key");
  EXPECT_EQ((*decoded)["automountServiceAccountToken"], false);
  auto unknown =
      DecodeKubernetesProtobuf(Envelope("v1", "ServiceAccount", Field(1, meta) + Field(9, "x")));
  EXPECT_FALSE(unknown.ok()) << "a field etna does not know is refused, not dropped";
}

TEST(ProtobufTest, TokenRequestAsKubectlCreateTokenSendsIt) {
  std::string bound = Field(1, "Pod") + Field(2, "v1") + Field(3, "trainer");
  std::string spec = Field(1, "api") + Field(3, bound) + IntField(4, 1200);
  auto decoded = DecodeKubernetesProtobuf(
      Envelope("authentication.k8s.io/v1", "TokenRequest", Field(1, "") + Field(2, spec)));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ((*decoded)["spec"]["expirationSeconds"], 1200);
  EXPECT_EQ((*decoded)["spec"]["audiences"], nlohmann::json::array({"api"}));
  EXPECT_EQ((*decoded)["spec"]["boundObjectRef"]["name"], "trainer");
  // A field etna does not know is refused, not dropped.
  auto unknown = DecodeKubernetesProtobuf(
      Envelope("authentication.k8s.io/v1", "TokenRequest", Field(2, spec + Field(9, "x"))));
  EXPECT_FALSE(unknown.ok());
}

TEST(ProtobufTest, StringsMustBeUtf8) {
  std::string meta = Field(1, std::string("te\xffm", 4));
  auto decoded = DecodeKubernetesProtobuf(Envelope("v1", "Namespace", Field(1, meta)));
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("name: not UTF-8"), std::string::npos);
  std::string ok = Field(1, Field(1, "caf\xc3\xa9"));
  EXPECT_TRUE(DecodeKubernetesProtobuf(Envelope("v1", "Namespace", ok)).ok());
  std::string overlong = Field(1, Field(1, std::string("\xc0\xaf", 2)));
  EXPECT_FALSE(DecodeKubernetesProtobuf(Envelope("v1", "Namespace", overlong)).ok());
}

// `kubectl create job pi --image=perl -- perl -e 1`: a Job with one container and its
// resources as Quantity messages.
TEST(ProtobufTest, JobAsKubectlCreateJobSendsIt) {
  std::string container =
      Field(1, "pi") + Field(2, "perl") + Field(3, "perl") + Field(3, "-e") + Field(3, "1") +
      Field(8, Field(2, Field(1, "cpu") + Field(2, Field(1, "500m")))) + Field(14, "IfNotPresent");
  std::string pod_spec = Field(2, container) + Field(3, "Never");
  std::string job_spec = Field(6, Field(1, "") + Field(2, pod_spec)) + IntField(7, 2);
  auto decoded = DecodeKubernetesProtobuf(
      Envelope("batch/v1", "Job", Field(1, Field(1, "pi")) + Field(2, job_spec) + Field(3, "")));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, json::parse(R"({"apiVersion":"batch/v1","kind":"Job",
      "metadata":{"name":"pi"},
      "spec":{"backoffLimit":2,"template":{"metadata":{},"spec":{"restartPolicy":"Never",
        "containers":[{"name":"pi","image":"perl","command":["perl","-e","1"],
          "imagePullPolicy":"IfNotPresent","resources":{"requests":{"cpu":"500m"}}}]}}}})"));
}

// `kubectl create deployment web --image=nginx --replicas=3`, with an IntOrString in its
// strategy; a field etna does not decode is refused by name, not dropped.
TEST(ProtobufTest, DeploymentAndCronJobWithRefusalOfUndecodedFields) {
  std::string tmpl = Field(1, MapEntry(11, "app", "web")) + Field(2, Field(2, Field(1, "nginx")));
  std::string rolling = Field(1, IntField(1, 1) + Field(3, "25%")) + Field(2, IntField(2, 2));
  std::string spec = IntField(1, 3) + Field(2, MapEntry(1, "app", "web")) + Field(3, tmpl) +
                     Field(4, Field(1, "RollingUpdate") + Field(2, rolling));
  auto d = DecodeKubernetesProtobuf(
      Envelope("apps/v1", "Deployment", Field(1, Field(1, "web")) + Field(2, spec)));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ((*d)["spec"]["replicas"], 3);
  EXPECT_EQ((*d)["spec"]["selector"]["matchLabels"]["app"], "web");
  EXPECT_EQ((*d)["spec"]["strategy"]["rollingUpdate"],
            json::parse(R"({"maxUnavailable":"25%","maxSurge":2})"));

  std::string job_spec = Field(6, Field(2, Field(2, Field(1, "c")) + Field(3, "OnFailure")));
  std::string cron_spec = Field(1, "*/5 * * * *") + Field(5, Field(2, job_spec)) + Field(8, "UTC");
  auto c = DecodeKubernetesProtobuf(
      Envelope("batch/v1", "CronJob", Field(1, Field(1, "tick")) + Field(2, cron_spec)));
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*c)["spec"]["schedule"], "*/5 * * * *");
  EXPECT_EQ((*c)["spec"]["timeZone"], "UTC");
  EXPECT_EQ((*c)["spec"]["jobTemplate"]["spec"]["template"]["spec"]["restartPolicy"], "OnFailure");

  // PodSpec field 18 (affinity) is not decoded: refused, naming the message; hostNetwork (11)
  // false, as Go writes every non-pointer field, says nothing and passes.
  std::string quiet = Field(6, Field(2, Field(2, Field(1, "c")) + IntField(11, 0) + Field(18, "")));
  EXPECT_TRUE(DecodeKubernetesProtobuf(
                  Envelope("batch/v1", "Job", Field(1, Field(1, "a")) + Field(2, quiet)))
                  .ok());
  std::string with_affinity =
      Field(6, Field(2, Field(2, Field(1, "c")) + Field(18, Field(1, Field(1, "")))));
  auto refused = DecodeKubernetesProtobuf(
      Envelope("batch/v1", "Job", Field(1, Field(1, "a")) + Field(2, with_affinity)));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("field 18 of PodSpec is not decoded"),
            std::string::npos)
      << refused.status().message();
}

TEST(ProtobufTest, OtherKindsAndBrokenBodiesAreRefusedByName) {
  auto pod = DecodeKubernetesProtobuf(Envelope("v1", "Pod", ""));
  ASSERT_FALSE(pod.ok());
  EXPECT_NE(pod.status().message().find("v1 Pod"), std::string::npos);
  EXPECT_NE(pod.status().message().find("content type"), std::string::npos);
  EXPECT_FALSE(DecodeKubernetesProtobuf("{}").ok());
  std::string truncated = Envelope("v1", "Namespace", Field(1, Field(1, "abc")));
  EXPECT_FALSE(DecodeKubernetesProtobuf(truncated.substr(0, truncated.size() - 2)).ok());
  EXPECT_FALSE(
      DecodeKubernetesProtobuf(std::string("k8s\0\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 15))
          .ok());
}

}  // namespace
}  // namespace etna::api::codec
