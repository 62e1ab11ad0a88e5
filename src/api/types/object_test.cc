#include "api/types/object.h"

#include <gtest/gtest.h>

namespace etna::api::types {
namespace {

TEST(ObjectViewTest, MetadataAndKey) {
  Json j = Json::parse(R"({"kind": "Pod", "metadata": {"name": "p", "namespace": "ns",
      "uid": "u", "generation": 4, "creationTimestamp": "2025-01-01T00:00:00Z",
      "labels": {"a": "1"}, "annotations": {"b": "2", "n": 3}}})");
  ObjectView o(j);
  EXPECT_EQ(o.name(), "p");
  EXPECT_EQ(o.ns(), "ns");
  EXPECT_EQ(o.uid(), "u");
  EXPECT_EQ(o.kind(), "Pod");
  EXPECT_EQ(o.generation(), 4);
  EXPECT_EQ(o.creation_timestamp(), "2025-01-01T00:00:00Z");
  EXPECT_EQ(o.Key(), "ns/p");
  EXPECT_EQ(o.Label("a"), "1");
  EXPECT_EQ(o.Label("missing", "d"), "d");
  EXPECT_EQ(o.Annotation("b"), "2");
  EXPECT_EQ(o.Annotation("n"), "");
  EXPECT_TRUE(o.HasAnnotation("n"));
  EXPECT_FALSE(o.HasAnnotation("z"));
  EXPECT_FALSE(o.IsDeleting());
  EXPECT_EQ(ObjectView(Json::parse(R"({"metadata": {"name": "node"}})")).Key(), "node");
}

TEST(ObjectViewTest, EmptyOrOddObjectsReadAsEmpty) {
  for (const Json& j : {Json(), Json::array(), Json::parse(R"({"metadata": 5})")}) {
    ObjectView o(j);
    EXPECT_EQ(o.name(), "");
    EXPECT_EQ(o.Key(), "");
    EXPECT_TRUE(o.labels().is_object());
    EXPECT_TRUE(o.owner_references().empty());
    EXPECT_FALSE(o.ControllerUid());
    EXPECT_FALSE(o.IsDeleting());
  }
}

TEST(ObjectViewTest, DeletingOnlyWithATimestamp) {
  EXPECT_TRUE(
      ObjectView(Json::parse(R"({"metadata": {"deletionTimestamp": "2025-01-01T00:00:00Z"}})"))
          .IsDeleting());
  EXPECT_FALSE(
      ObjectView(Json::parse(R"({"metadata": {"deletionTimestamp": null}})")).IsDeleting());
}

TEST(ObjectViewTest, OwnerReferences) {
  Json j = Json::parse(R"({"metadata": {"ownerReferences": [
      {"kind": "ReplicaSet", "uid": "rs"}, {"kind": "Job", "uid": "job", "controller": true}]}})");
  ObjectView o(j);
  EXPECT_EQ(o.ControllerUid(), "job");
  EXPECT_TRUE(o.HasOwnerOfKind("Job"));
  EXPECT_FALSE(o.HasOwnerOfKind("Deployment"));
  Json uncontrolled = Json::parse(R"({"metadata": {"ownerReferences": [{"uid": "x"}]}})");
  EXPECT_FALSE(ObjectView(uncontrolled).ControllerUid());
}

}  // namespace
}  // namespace etna::api::types
