#include "api/codec/patch.h"

#include <gtest/gtest.h>

#include <string>

namespace etna::api::codec {
namespace {

using Json = nlohmann::json;

struct PatchCase {
  std::string target;
  std::string patch;
  std::string want;  // empty: an error is expected
};

// RFC 7386, Appendix A (the cases whose patch is an object; others are rejected below).
TEST(MergePatchTest, Rfc7386AppendixA) {
  const std::vector<PatchCase> cases = {
      {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
      {R"({"a":"b"})", R"({"a":null})", R"({})"},
      {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
      {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
      {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
      {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
      {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
      {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
      {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
      {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
  };
  for (const PatchCase& c : cases) {
    Result<Json> got = ApplyMergePatch(Json::parse(c.target), Json::parse(c.patch));
    ASSERT_TRUE(got.ok()) << c.patch << ": " << got.status().ToString();
    EXPECT_EQ(*got, Json::parse(c.want)) << c.target << " + " << c.patch;
  }
}

TEST(MergePatchTest, PatchMustBeAnObject) {
  for (const char* patch : {R"(["c","d"])", "null", R"("bar")", "1"}) {
    Result<Json> got = ApplyMergePatch(Json::parse(R"({"a":"b"})"), Json::parse(patch));
    ASSERT_FALSE(got.ok()) << patch;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(got.status().message(), "merge patch must be a JSON object");
  }
}

// RFC 6902, Appendix A.
TEST(JsonPatchTest, Rfc6902AppendixA) {
  const std::vector<PatchCase> cases = {
      // A.1 - A.8
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
       R"({"baz":"qux","foo":"bar"})"},
      {R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
       R"({"foo":["bar","qux","baz"]})"},
      {R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])", R"({"foo":"bar"})"},
      {R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])",
       R"({"foo":["bar","baz"]})"},
      {R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])",
       R"({"baz":"boo","foo":"bar"})"},
      {R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
       R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
       R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
      {R"({"foo":["all","grass","cows","eat"]})",
       R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])",
       R"({"foo":["all","cows","eat","grass"]})"},
      {R"({"baz":"qux","foo":["a",2,"c"]})",
       R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
       R"({"baz":"qux","foo":["a",2,"c"]})"},
      // A.9 test failure
      {R"({"baz":"qux"})", R"([{"op":"test","path":"/baz","value":"bar"}])", ""},
      // A.10 nested member, A.11 unrecognised members ignored
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
       R"({"foo":"bar","child":{"grandchild":{}}})"},
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])",
       R"({"foo":"bar","baz":"qux"})"},
      // A.12 add to a missing parent
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])", ""},
      // A.14 ~ escapes, A.15 strings are not numbers
      {R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])", R"({"/":9,"~1":10})"},
      {R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":"10"}])", ""},
      {R"({"/":9,"~1":10})", R"([{"op":"remove","path":"/~1"}])", R"({"~1":10})"},
      // A.16 append with "-"
      {R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
       R"({"foo":["bar",["abc","def"]]})"},
      // More.
      {R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])",
       R"({"a":{"b":1},"c":{"b":1}})"},
      {R"({"a":1})", R"([{"op":"replace","path":"","value":[1]}])", R"([1])"},
      {R"({"a":[1,2]})", R"([{"op":"add","path":"/a/2","value":3}])", R"({"a":[1,2,3]})"},
      {R"({"a":[1,2]})", R"([{"op":"add","path":"/a/3","value":3}])", ""},
      {R"({"a":[1,2]})", R"([{"op":"add","path":"/a/01","value":3}])", ""},
      {R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/-"}])", ""},
      {R"({"a":[1,2]})", R"([{"op":"remove","path":"/a/2"}])", ""},
      {R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])", ""},
      {R"({"a":1})", R"([{"op":"remove","path":""}])", ""},
      {R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/b/c"}])", ""},
      {R"({"a":1})", R"([{"op":"add","path":"/b"}])", ""},
      {R"({"a":1})", R"([{"op":"add","path":"b","value":1}])", ""},
      {R"({"a":1})", R"([{"op":"add","path":"/~2","value":1}])", ""},
      {R"({"a":1})", R"([{"op":"frob","path":"/a"}])", ""},
      {R"({"a":1})", R"([{"path":"/a"}])", ""},
      {R"({"a":1})", R"([1])", ""},
      {R"({"a":1})", R"({"op":"remove","path":"/a"})", ""},
      {R"({"a":1})", R"([{"op":"add","path":"/b","value":null}])", R"({"a":1,"b":null})"},
  };
  for (const PatchCase& c : cases) {
    Result<Json> got = ApplyJsonPatch(Json::parse(c.target), Json::parse(c.patch));
    if (c.want.empty()) {
      ASSERT_FALSE(got.ok()) << c.patch;
      EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
    } else {
      ASSERT_TRUE(got.ok()) << c.patch << ": " << got.status().ToString();
      EXPECT_EQ(*got, Json::parse(c.want)) << c.target << " + " << c.patch;
    }
  }
}

TEST(JsonPatchTest, ErrorsNameTheOpIndexAndPath) {
  Result<Json> got = ApplyJsonPatch(Json::parse(R"({"baz":"qux"})"), Json::parse(R"([
      {"op":"add","path":"/a","value":1},
      {"op":"test","path":"/baz","value":"bar"}])"));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().message(), "json patch op 1 (test /baz): test failed: value differs");
  Result<Json> missing =
      ApplyJsonPatch(Json::parse(R"({"a":{}})"), Json::parse(R"([{"op":"remove","path":"/a/b"}])"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "json patch op 0 (remove /a/b): path not found");
}

TEST(JsonPatchTest, CopyGrowthIsCapped) {
  Json ops = Json::array();
  ops.push_back({{"op", "add"}, {"path", "/a"}, {"value", Json::array({1, 2, 3, 4})}});
  for (int i = 0; i < 40; ++i) ops.push_back({{"op", "copy"}, {"from", "/a"}, {"path", "/a/-"}});
  Result<Json> got = ApplyJsonPatch(Json::object(), ops);
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("copies"), std::string::npos) << got.status().message();
}

Json StrategicMerge(const std::string& target, const std::string& patch) {
  Result<Json> got = ApplyStrategicMergePatch(Json::parse(target), Json::parse(patch));
  EXPECT_TRUE(got.ok()) << patch << ": " << got.status().ToString();
  return got.ok() ? *got : Json();
}

// The body kubectl 1.32 sends when `kubectl apply` changes a Pod's command.
TEST(StrategicMergePatchTest, KubectlApplyPodKeepsImage) {
  const std::string live = R"({
    "apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","namespace":"default","resourceVersion":"5",
      "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"old\":1}\n","keep":"me"}},
    "spec":{"containers":[{"name":"c","image":"busybox","command":["sleep","3600"],
      "resources":{"limits":{"nvidia.com/gpu":"1"}}}],"restartPolicy":"Never"},
    "status":{"phase":"Running"}})";
  const std::string patch =
      R"({"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"new\":1}\n"}},)"
      R"("spec":{"$setElementOrder/containers":[{"name":"c"}],"containers":[{"command":["sleep","7200"],"name":"c"}]}})";
  Json got = StrategicMerge(live, patch);
  const Json& c = got["spec"]["containers"];
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0]["image"], "busybox");
  EXPECT_EQ(c[0]["command"], Json::array({"sleep", "7200"}));
  EXPECT_EQ(c[0]["resources"]["limits"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(got["metadata"]["annotations"]["keep"], "me");
  EXPECT_EQ(got["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"],
            "{\"new\":1}\n");
  EXPECT_EQ(got["spec"]["restartPolicy"], "Never");
  EXPECT_EQ(got["status"]["phase"], "Running");
  EXPECT_FALSE(got["spec"].contains("$setElementOrder/containers"));
}

TEST(StrategicMergePatchTest, Cases) {
  const std::vector<PatchCase> cases = {
      // $patch: delete in a list item.
      {R"({"containers":[{"name":"a","image":"x"},{"name":"b"}]})",
       R"({"containers":[{"$patch":"delete","name":"a"}]})", R"({"containers":[{"name":"b"}]})"},
      // $patch: replace in a list.
      {R"({"containers":[{"name":"a","image":"x"},{"name":"b"}]})",
       R"({"containers":[{"name":"z","image":"i"},{"$patch":"replace"}]})",
       R"({"containers":[{"name":"z","image":"i"}]})"},
      // $patch: replace on a map.
      {R"({"spec":{"a":1,"b":{"c":2}}})", R"({"spec":{"$patch":"replace","b":{"d":3}}})",
       R"({"spec":{"b":{"d":3}}})"},
      // $patch: delete on a map leaves it empty.
      {R"({"spec":{"a":1}})", R"({"spec":{"$patch":"delete"}})", R"({"spec":{}})"},
      // Reorder only.
      {R"({"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]})",
       R"({"$setElementOrder/containers":[{"name":"c"},{"name":"a"},{"name":"b"}]})",
       R"({"containers":[{"name":"c"},{"name":"a"},{"name":"b"}]})"},
      // A server-only item keeps its place between the items the patch names.
      {R"({"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]})",
       R"({"$setElementOrder/containers":[{"name":"a"},{"name":"c"}],"containers":[{"name":"c","image":"n"}]})",
       R"({"containers":[{"name":"a"},{"name":"b"},{"name":"c","image":"n"}]})"},
      // A new item goes where $setElementOrder puts it.
      {R"({"containers":[{"name":"a"},{"name":"b"}]})",
       R"({"$setElementOrder/containers":[{"name":"n"},{"name":"a"},{"name":"b"}],"containers":[{"name":"n","image":"x"}]})",
       R"({"containers":[{"name":"n","image":"x"},{"name":"a"},{"name":"b"}]})"},
      // Without an order new items are appended.
      {R"({"containers":[{"name":"a"}]})", R"({"containers":[{"name":"z"}]})",
       R"({"containers":[{"name":"a"},{"name":"z"}]})"},
      // env merges by name.
      {R"({"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}]})",
       R"({"env":[{"name":"B","value":"3"},{"name":"C","value":"4"}]})",
       R"({"env":[{"name":"A","value":"1"},{"name":"B","value":"3"},{"name":"C","value":"4"}]})"},
      // valueFrom replaced by value: null deletes inside an item.
      {R"({"env":[{"name":"A","valueFrom":{"x":1}}]})",
       R"({"env":[{"name":"A","value":"v","valueFrom":null}]})",
       R"({"env":[{"name":"A","value":"v"}]})"},
      // ports merge by containerPort.
      {R"({"ports":[{"containerPort":80,"name":"http"},{"containerPort":443}]})",
       R"({"ports":[{"containerPort":80,"protocol":"TCP"}]})",
       R"({"ports":[{"containerPort":80,"name":"http","protocol":"TCP"},{"containerPort":443}]})"},
      // Service ports merge by port.
      {R"({"ports":[{"port":80,"targetPort":8080}]})", R"({"ports":[{"port":80,"name":"web"}]})",
       R"({"ports":[{"port":80,"targetPort":8080,"name":"web"}]})"},
      // volumeMounts by mountPath, conditions by type.
      {R"({"volumeMounts":[{"mountPath":"/d","name":"v"}]})",
       R"({"volumeMounts":[{"mountPath":"/d","readOnly":true}]})",
       R"({"volumeMounts":[{"mountPath":"/d","name":"v","readOnly":true}]})"},
      {R"({"conditions":[{"type":"Ready","status":"False"},{"type":"Scheduled","status":"True"}]})",
       R"({"conditions":[{"type":"Ready","status":"True"}]})",
       R"({"conditions":[{"type":"Ready","status":"True"},{"type":"Scheduled","status":"True"}]})"},
      // finalizers merge as a set; $deleteFromPrimitiveList removes.
      {R"({"metadata":{"finalizers":["a","b"]}})", R"({"metadata":{"finalizers":["b","c"]}})",
       R"({"metadata":{"finalizers":["a","b","c"]}})"},
      {R"({"metadata":{"finalizers":["a","b","c"]}})",
       R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["b"]}})",
       R"({"metadata":{"finalizers":["a","c"]}})"},
      // $retainKeys clears the keys it does not name.
      {R"({"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1}}})",
       R"({"strategy":{"$retainKeys":["type"],"type":"Recreate"}})",
       R"({"strategy":{"type":"Recreate"}})"},
      // Other lists are replaced; maps merge; null deletes.
      {R"({"args":["a","b"],"labels":{"x":"1","y":"2"}})",
       R"({"args":["c"],"labels":{"x":null,"z":"3"}})",
       R"({"args":["c"],"labels":{"y":"2","z":"3"}})"},
      // A new subtree has its directives removed.
      {R"({})",
       R"({"spec":{"containers":[{"name":"a","$setElementOrder/env":[{"name":"E"}],"env":[{"name":"E"}]}]}})",
       R"({"spec":{"containers":[{"name":"a","env":[{"name":"E"}]}]}})"},
      // Nested: a container's ports and env inside containers.
      {R"({"containers":[{"name":"a","image":"i","ports":[{"containerPort":1}],"env":[{"name":"X","value":"1"}]}]})",
       R"({"containers":[{"name":"a","ports":[{"containerPort":2}],"env":[{"$patch":"delete","name":"X"}]}]})",
       R"({"containers":[{"name":"a","image":"i","ports":[{"containerPort":1},{"containerPort":2}],"env":[]}]})"},
  };
  for (const PatchCase& c : cases) {
    EXPECT_EQ(StrategicMerge(c.target, c.patch), Json::parse(c.want))
        << c.target << " + " << c.patch;
  }
}

TEST(StrategicMergePatchTest, Errors) {
  const std::vector<PatchCase> cases = {
      {R"({})", R"([1])", ""},
      {R"({"containers":[{"name":"a"}]})", R"({"containers":[{"image":"x"}]})", ""},
      {R"({"containers":[{"name":"a"}]})", R"({"containers":[1]})", ""},
      {R"({"spec":{}})", R"({"spec":{"$patch":"frob"}})", ""},
      {R"({"spec":{}})", R"({"spec":{"$retainKeys":"a"}})", ""},
  };
  for (const PatchCase& c : cases) {
    Result<Json> got = ApplyStrategicMergePatch(Json::parse(c.target), Json::parse(c.patch));
    ASSERT_FALSE(got.ok()) << c.patch;
    EXPECT_EQ(got.status().code(), StatusCode::kInvalidArgument);
  }
  Result<Json> got = ApplyStrategicMergePatch(
      Json::parse(R"({"spec":{"containers":[{"name":"a"}]}})"),
      Json::parse(R"({"spec":{"containers":[{"name":"a"},{"image":"x"}]}})"));
  EXPECT_EQ(got.status().message(),
            "strategic merge patch: spec.containers[1]: missing merge key \"name\"");
}

}  // namespace
}  // namespace etna::api::codec
