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
